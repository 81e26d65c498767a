// Item text to HTML: bank text escaped, build-rendered MathML kept, Markdown-ish formatting.
// Run: node --test tests/node/quiz/quiz-text.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import { toHtml, texToHtml, escapeHtml, isSafeMathml } from '../../../web/src/quiz/text.js';

const bank = JSON.parse(
  fs.readFileSync(fileURLToPath(new URL('../../../web/src/quiz/bank.json', import.meta.url)), 'utf8'),
);

// The site's build step (Temml); the tests that need it are skipped when it is not installed.
let plugin = null;
try {
  plugin = await import('../../../web/build/math-plugin.js');
} catch {
  plugin = null;
}
const needsTemml = { skip: plugin ? false : 'temml is not installed' };

const MATHML_SPAN = /<math\b[^>]*>[\s\S]*?<\/math>/g;

test('script and other tags in text are escaped', () => {
  const out = toHtml('Hi <script>alert("x")</script> & <img src=x onerror=alert(1)> bye');
  assert.equal(out, '<p>Hi &lt;script&gt;alert("x")&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt; bye</p>');
  assert.ok(!/<script|<img/.test(out));
  assert.equal(escapeHtml('<&>'), '&lt;&amp;&gt;');
});

test('build-produced MathML is kept verbatim', () => {
  const m = '<math><mrow><mo form="prefix" stretchy="false">+</mo><mn>1</mn></mrow></math>';
  assert.equal(toHtml(`The ${m} term <b>`), `<p>The ${m} term &lt;b&gt;</p>`);
  const display = '<math display="block" class="tml-display"><mrow><mi>x</mi><mo>&lt;</mo><mi>y</mi></mrow></math>';
  assert.equal(toHtml(`${display} then`), `<p>${display} then</p>`);
});

test('MathML that is not from the allow-list is escaped as text', () => {
  const bad = [
    '<math><mi>x</mi><script>alert(1)</script></math>',
    '<math onload="alert(1)"><mi>x</mi></math>',
    '<math><mi style="color:red">x</mi></math>',
    '<math><mi href="javascript:alert(1)">x</mi></math>',
    '<math><mi>x</mn></math>',
    '<math><mi>x</math>',
    '<math><annotation-xml encoding="text/html"><img src=x onerror=alert(1)></annotation-xml></math>',
    '<math><mi>a&b</mi></math>',
    '<math><mi title=x>a</mi></math>',
    '<math><mtext><a href="x">y</a></mtext></math>',
  ];
  for (const b of bad) {
    assert.equal(isSafeMathml(b), false, b);
    const out = toHtml(`before ${b} after`);
    assert.ok(!out.includes('<math'), out);
    assert.ok(out.includes('&lt;math'), out);
  }
  assert.equal(isSafeMathml('<math><mi>x</mi></math>'), true);
  assert.equal(isSafeMathml('<math><mspace width="0.1667em"/><mi>&#x3B1;</mi><mi>&amp;</mi></math>'), true);
  assert.equal(isSafeMathml('<math><mi>x</mi></math><mi>y</mi>'), false);
  assert.equal(isSafeMathml('<mi>x</mi>'), false);
});

test('paragraphs, line breaks, **bold** and `code`', () => {
  assert.equal(toHtml('one\ntwo\n\nthree'), '<p>one<br>two</p><p>three</p>');
  assert.equal(toHtml('one\ntwo\n\n\n  \nthree', { paragraphs: false }), 'one<br>two<br><br>three');
  assert.equal(
    toHtml('a **bold** and `x <y> **not bold**` end'),
    '<p>a <strong>bold</strong> and <code>x &lt;y&gt; **not bold**</code> end</p>',
  );
  assert.equal(toHtml('**unclosed and `open'), '<p>**unclosed and `open</p>');
  assert.equal(toHtml('\r\nwindows\r\n\r\nlines'), '<p>windows</p><p>lines</p>');
  assert.equal(toHtml(''), '');
  assert.equal(toHtml(undefined), '');
});

test('bold may wrap math; math is never formatted', () => {
  const m = '<math><mi>x</mi></math>';
  assert.equal(toHtml(`**the ${m} term**`), `<p><strong>the ${m} term</strong></p>`);
  const star = '<math><msup><mi>a</mi><mo>**</mo></msup></math>';
  assert.equal(toHtml(`a ${star} b **c**`), `<p>a ${star} b <strong>c</strong></p>`);
});

test('the placeholder characters in input cannot forge a math span', () => {
  const m = '<math><mi>x</mi></math>';
  const out = toHtml(`${m} \uE0000\uE001 \uE000c0\uE001 <b>`);
  assert.equal(out, `<p>${m} 0 c0 &lt;b&gt;</p>`);
});

test('texToHtml keeps TeX for MathJax, escaped, unformatted', () => {
  assert.equal(
    texToHtml(String.raw`**a** \(x_i < y\) and \[\sum_{i<j} a**b\] <i>`),
    String.raw`<p><strong>a</strong> \(x_i &lt; y\) and \[\sum_{i&lt;j} a**b\] &lt;i&gt;</p>`,
  );
});

test('every rendered bank string: all its MathML kept, everything else escaped', needsTemml, () => {
  const rendered = plugin.renderMathDeep(bank);
  let spans = 0;
  for (const item of rendered.items) {
    const texts = [item.prompt, item.solution, item.explanation, item.experiment?.look].filter(
      (t) => typeof t === 'string',
    );
    for (const text of texts) {
      const out = toHtml(text);
      const mathml = text.match(MATHML_SPAN) || [];
      spans += mathml.length;
      for (const m of mathml) {
        assert.ok(isSafeMathml(m), `${item.id}: ${m}`);
        assert.ok(out.includes(m), `${item.id}: MathML span dropped`);
      }
      // outside the math, no markup but the formatting tags
      const rest = out.replace(MATHML_SPAN, '');
      assert.ok(!/<(?!\/?(p|br|strong|code)>)/.test(rest), `${item.id}: ${rest}`);
      assert.equal((out.match(/<math\b/g) || []).length, mathml.length);
    }
  }
  assert.ok(spans > 100, `${spans} spans`);
});
