"""Keep only the JS lowercase mappings that differ from Python's; write scoring/data/js_lowercase.json.

Usage: node tools/gen_js_tables.mjs | python tools/gen_js_tables.py
"""

import json
import sys
from pathlib import Path

js = json.load(sys.stdin)
diff = {}
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    c = chr(cp)
    if (j := js["lower"].get(str(cp), c)) != c.lower():
        diff[c] = j
out = Path(__file__).resolve().parents[1] / "scoring" / "data" / "js_lowercase.json"
out.write_text(json.dumps({"unicode": js["unicode"], "lower": diff}, ensure_ascii=False, indent=0) + "\n")
print(f"{len(diff)} code points differ; wrote {out}")
