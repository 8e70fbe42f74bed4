// Writes scoring/data/js_lowercase.json: the code points whose String.prototype.toLowerCase
// result differs from Python's str.lower() (Node's ICU carries a newer Unicode than CPython 3.11).
// Run: node tools/gen_js_tables.mjs > /tmp/js_lower_all.json, then tools/gen_js_tables.py.
const out = {};
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  const l = c.toLowerCase();
  if (l !== c) out[cp] = l;
}
process.stdout.write(JSON.stringify({ unicode: process.versions.unicode, lower: out }));
