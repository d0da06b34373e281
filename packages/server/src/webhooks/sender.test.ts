import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXCERPT_CHARS, responseExcerpt } from './sender.ts';

const excerpt = (text: string | Buffer) => responseExcerpt(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'));

test('a short answer is kept as it is; an empty or blank one is null', () => {
  assert.equal(excerpt('{"error":"invalid signature"}'), '{"error":"invalid signature"}');
  assert.equal(excerpt(''), null);
  assert.equal(excerpt(' \r\n\t '), null);
});

test('tabs and line breaks become spaces, other control characters U+FFFD; the text is trimmed', () => {
  assert.equal(excerpt('\n  line one\r\nline\ttwo\n'), 'line one  line two');
  assert.equal(excerpt('a\u0000b\u001bc\u007fd\u0085e'), 'a\ufffdb\ufffdc\ufffdd\ufffde');
  // Bidirectional overrides and isolates and the line separators could reorder or break what a dashboard shows.
  assert.equal(excerpt('x\u202ey\u2066z\u2028w'), 'x\ufffdy\ufffdz\ufffdw');
});

test(`at most ${EXCERPT_CHARS} characters, counted as code points, never a broken character`, () => {
  const long = excerpt('é'.repeat(1000))!;
  assert.equal(long, 'é'.repeat(EXCERPT_CHARS));
  const astral = excerpt('😀'.repeat(1000))!;
  assert.equal(Array.from(astral).length, EXCERPT_CHARS);
  assert.equal(astral, '😀'.repeat(EXCERPT_CHARS));
  assert.equal(excerpt('a'.repeat(70_000))!.length, EXCERPT_CHARS);
});

test('invalid UTF-8 becomes U+FFFD', () => {
  assert.equal(excerpt(Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0x21])), 'ok\ufffd\ufffd!');
});

test('what looks like a secret is masked: an echoed signing secret, a Bearer value, a field named like a secret', () => {
  const secret = 'whsec_MfKQ9r0NM8Gq3rZpQ7v3kO2VfbUiH9mL';
  const text = excerpt(`signature mismatch: expected with ${secret}; Authorization: Bearer abc.def; {"api_key":"k1"}`)!;
  assert.ok(!text.includes('MfKQ9r0NM8Gq3rZpQ7v3kO2VfbUiH9mL'), text);
  assert.ok(!text.includes('abc.def'), text);
  assert.ok(!text.includes('k1'), text);
  assert.match(text, /^signature mismatch: expected with/);
});
