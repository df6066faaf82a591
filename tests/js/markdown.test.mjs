// The widget's Markdown parser in node (no browser): blocks, inline tokens,
// the link allow-list, and where a streamed text can be cut into closed blocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { closedLength, parseBlocks, parseInline, safeHref } from '../../js/chat/markdown.js';

test('blocks: paragraphs, headings, lists, fenced code (an unclosed fence is code so far)', () => {
  const blocks = parseBlocks('# Title\n\nOne\ntwo\n\n- a\n- b\n\n1. x\n2. y\n\n```js\nlet a = 1;\n```\n\n```\nopen');
  assert.deepEqual(blocks, [
    { type: 'heading', text: 'Title' },
    { type: 'paragraph', text: 'One\ntwo' },
    { type: 'list', ordered: false, start: 1, items: ['a', 'b'] },
    { type: 'list', ordered: true, start: 1, items: ['x', 'y'] },
    { type: 'code', lang: 'js', text: 'let a = 1;', closed: true },
    { type: 'code', lang: '', text: 'open', closed: false },
  ]);
});

test('inline: code, strong, em, links; raw HTML stays text', () => {
  assert.deepEqual(parseInline('a `<b>` **bold _it_** _e_ [l](https://x.test/a_(b)) <https://y.test>'), [
    { type: 'text', text: 'a ' },
    { type: 'code', text: '<b>' },
    { type: 'text', text: ' ' },
    { type: 'strong', children: [{ type: 'text', text: 'bold ' }, { type: 'em', children: [{ type: 'text', text: 'it' }] }] },
    { type: 'text', text: ' ' },
    { type: 'em', children: [{ type: 'text', text: 'e' }] },
    { type: 'text', text: ' ' },
    { type: 'link', href: 'https://x.test/a_(b)', image: false, children: [{ type: 'text', text: 'l' }] },
    { type: 'text', text: ' ' },
    { type: 'link', href: 'https://y.test/', image: false, children: [{ type: 'text', text: 'https://y.test' }] },
  ]);
  assert.deepEqual(parseInline('<img src=x onerror="window.__xss=1"><script>alert(1)</script>'), [
    { type: 'text', text: '<img src=x onerror="window.__xss=1"><script>alert(1)</script>' },
  ]);
  assert.equal(parseInline('snake_case_name').length, 1, 'underscores inside words are no emphasis');
});

test('the link allow-list: http, https and mailto only, parsed without a base', () => {
  for (const refused of [
    'javascript:window.__xss=3',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    '\x01javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'jav&#x61;script:alert(1)',
    '/relative/path',
    '//evil.test/x',
    'notes.html',
    '',
  ]) {
    assert.equal(safeHref(refused), null, JSON.stringify(refused));
  }
  assert.equal(safeHref('https://example.org/a b'), 'https://example.org/a%20b');
  assert.equal(safeHref('HTTP://Example.org'), 'http://example.org/');
  assert.equal(safeHref('mailto:reader@example.org'), 'mailto:reader@example.org');
});

test('refused links and images: text only, images never become images', () => {
  for (const source of ['[a](javascript:window.__xss=3)', '[b](JaVaScRiPt:x)', '[c]( javascript:x)', '[e](data:text/html,x)']) {
    const [token] = parseInline(source);
    assert.equal(token.type, 'link');
    assert.equal(token.href, null, source);
  }
  const [image] = parseInline('![f](http://127.0.0.1:9/pixel)');
  assert.deepEqual(image, { type: 'link', href: 'http://127.0.0.1:9/pixel', image: true, children: [{ type: 'text', text: 'f' }] });
  assert.equal(parseInline('[d](java\tscript:x)')[0].href, null, 'a tab in the URL: no href');
});

test('a stream is cut after its last blank line outside a fence', () => {
  assert.equal(closedLength('one\n\ntw'), 5);
  assert.equal(closedLength('one\n\n```\ncode\n\nmore'), 5, 'the blank line inside the open fence does not close it');
  assert.equal(closedLength('```\na\n\nb\n```\n\nnext'), 14);
  assert.equal(closedLength('no blank line yet'), 0);
});

test('no file of the widget builds HTML from strings', () => {
  const dir = new URL('../../js/chat/', import.meta.url);
  for (const name of readdirSync(dir)) {
    const source = readFileSync(new URL(name, dir), 'utf8');
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'createContextualFragment', 'DOMParser', 'eval(', 'new Function']) {
      assert.ok(!source.includes(sink), `${name} uses ${sink}`);
    }
  }
});
