"""Edits of the catalogue's attacks: python3 edit.py FILE append|replace|prepend ARGS... ; output.json."""
import json
import sys


def main():
    path, op = sys.argv[1], sys.argv[2]
    if path.endswith("output.json"):
        json.dump({"axes": [{"axis": "reg_tile", "direction": "forward"}], "target_metrics": ["l1_hit_rate"],
                   "rationale": op, "same_kernel": "catalogue attack: " + op}, open(path, "w"))
        return
    text = open(path).read()
    if op == "append":
        text += sys.argv[3]
    elif op == "prepend":
        text = sys.argv[3] + text
    elif op == "replace":
        if sys.argv[3] not in text:
            sys.exit(f"{path}: '{sys.argv[3]}' not found")
        text = text.replace(sys.argv[3], sys.argv[4], 1)
    open(path, "w").write(text)


main()
