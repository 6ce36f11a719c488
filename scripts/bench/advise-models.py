#!/usr/bin/env python3
"""Writes the model files of issue 45's advise-at-scale benchmark.

usage: advise-models.py chain|sparse N > model.yaml

chain:  N entities, entity i the child of entity i-1 (one-to-many, 3
        children typically, at most 10), one read of each child by _id
        including its parent.
sparse: N entities, entity i the child of one of the 20 before it (a fixed
        pseudo-random choice), one such read and one insert of the child per
        relationship.
"""
import sys


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    seed = 7
    out = [f"name: {kind}{n}", "entities:"]
    for i in range(n):
        out += [f"  e{i}:", "    count: 1000", "    fields:",
                "      name: string(20)", "      code: string(8)"]
    out.append("relationships:")
    parents = {}
    for i in range(1, n):
        if kind == "chain":
            p = i - 1
        else:
            seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
            p = i - 1 - (seed >> 33) % min(20, i)
        parents[i] = p
        out += [f"  r{i}:", f"    parent: e{p}", f"    child: e{i}",
                "    children: {typical: 3, max: 10}"]
    out.append("operations:")
    for i in range(1, n):
        out += [f"  read{i}:", f"    read: e{i}", "    rate: 1",
                "    filter: {_id: eq}", f"    include: [r{i}]"]
        if kind == "sparse":
            out += [f"  insert{i}:", f"    insert: e{i}", f"    links: [r{i}]",
                    "    rate: 1"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
