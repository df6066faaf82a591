// Token and cost readouts: one line per turn, and the conversation's stored totals.

/** Sums of `tokenUsage` events. */
export class Usage {
  inputTokens = 0;
  outputTokens = 0;
  costUsd = 0;
  priced = false;
  estimated = false;
  add(event) {
    this.inputTokens += event.inputTokens ?? 0;
    this.outputTokens += event.outputTokens ?? 0;
    if (typeof event.costUsd === 'number') {
      this.costUsd += event.costUsd;
      this.priced = true;
    }
    if (event.estimated) this.estimated = true;
  }
  /** A readout of `lectern.usage(conversationId)`'s totals. */
  static of(totals) {
    const usage = new Usage();
    usage.add(totals);
    return usage;
  }
  /** "120 in · 30 out · $0.0004" (with "≈" when estimated). */
  toString() {
    const about = this.estimated ? '≈' : '';
    const cost = this.priced ? ` · ${formatCost(this.costUsd)}` : '';
    return `${about}${this.inputTokens} in · ${about}${this.outputTokens} out tokens${cost}`;
  }
}

/** Dollars with enough digits to show small sums. */
export function formatCost(usd) {
  return `$${usd >= 0.01 ? usd.toFixed(2) : usd.toFixed(4)}`;
}
