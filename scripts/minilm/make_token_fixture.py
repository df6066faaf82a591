#!/usr/bin/env python3
"""Writes tests/fixtures/minilm/tokens.jsonl: for each text, the words the reference BertNormalizer +
BertPreTokenizer make of it and the ids sentence-transformers feeds all-MiniLM-L6-v2 (truncated at
256, its max_seq_length; tokenizer.json's own 128 is overridden). Texts: sentences of the shared
Gutenberg fixture (ASCII only), its longest rows, the Unicode edge cases the port must match, and
random multi-script strings (fixed seed).

    venv/bin/python scripts/minilm/make_token_fixture.py MODEL_DIR/tokenizer.json GUTENBERG_TSV OUT.jsonl
"""
import json, random, sys
from tokenizers import Tokenizer

tokenizer_path, tsv, out = sys.argv[1:4]
tok = Tokenizer.from_file(tokenizer_path)
tok.no_padding()
tok.enable_truncation(max_length=256)

rows = [line.rstrip('\n').split('\t', 2)[2] for line in open(tsv, encoding='utf-8')]
texts = rows[:40] + [rows[i] for i in (30, 278, 40800, 41324, 46362)]
texts += [
    '[MASK]', '[mask] me', 'a[MASK]b', 'a[SEP]b [CLS][PAD][UNK]', 'a' * 100, 'a' * 101, 'İstanbul', 'ΟΔΟΣ',
    'ǅemal ǈ', 'ﬁne ﬂow', 'Ⅻ ¼ ² ①', 'no\u00a0break', 'zero\u200bwidth', 'soft\u00adhyphen', 'v\u000btab f\u000cfeed n\u0085el',
    'line\u2028sep', 'ideo\u3000space', 'private\ue000use \U000F0000', 'unassigned \u0378', '漢字テスト、「かな」。', '豈 更 \U0002F800',
    '한국어 문장입니다', 'ภาษาไทยไม่มีช่องว่าง', 'مَرْحَبًا بِالْعَالَم', 'שָׁלוֹם עוֹלָם', '、。！“”—…§¶', '$5 + <x=y> ^ `a` | b ~ c',
    '¢ € ´ 😀 👍🏽 a¢b', 'Héllo ÇA VA? naïve café', 'Crème brûlée, s\'il vous plaît!', 'tab\tand\nnewline\r\nend',
    'control\u0001chars\u007f here', 'BOM\ufeffstart', 'e\u0301 combining', 'Ⓐ ⒜ ㈠', 'ｆｕｌｌｗｉｄｔｈ ＡＢＣ', 'unaffable unbelievably',
    ' '.join(['word'] * 300), 'x' * 30 + ' ' + 'y' * 99,
]
random.seed(7)
pools = [range(0x20, 0x250), range(0x300, 0x3FF), range(0x400, 0x530), range(0x590, 0x700), range(0x900, 0xD80),
         range(0xE00, 0xE80), range(0x1100, 0x1200), range(0x1E00, 0x2100), range(0x2E00, 0x2E60), range(0x3000, 0x3100),
         range(0x3400, 0x3410), range(0xAC00, 0xAC40), range(0x4E00, 0x4E10), range(0xF900, 0xF910), range(0xFE00, 0xFF70),
         range(0x1D400, 0x1D420), range(0x1F300, 0x1F320), range(0x0, 0x20), range(0x80, 0xA0), range(0x2000, 0x2070)]
chars = [c for p in pools for c in p]
words = ['[MASK]', 'hello', 'unaffable', 'İstanbul', 'ΟΔΟΣ', 'the', 'Syme']
for _ in range(150):
    texts.append(''.join(chr(random.choice(chars)) if random.random() < 0.7 else ' ' + random.choice(words) + ' '
                         for _ in range(random.randint(1, 40))))

with open(out, 'w', encoding='utf-8') as f:
    for text in texts:
        normalized = tok.normalizer.normalize_str(text)
        pieces = [w for w, _ in tok.pre_tokenizer.pre_tokenize_str(normalized)]
        ids = tok.encode(text).ids
        f.write(json.dumps({'text': text, 'words': pieces, 'ids': ids}, ensure_ascii=False) + '\n')
print(f'{len(texts)} texts -> {out}')
