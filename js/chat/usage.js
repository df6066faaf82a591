// Token and cost readouts: one line per turn, and the conversation's sum for this session.

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
  addAll(other) {
    this.inputTokens += other.inputTokens;
    this.outputTokens += other.outputTokens;
    this.costUsd += other.costUsd;
    this.priced ||= other.priced;
    this.estimated ||= other.estimated;
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
