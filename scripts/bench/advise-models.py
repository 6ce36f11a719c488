#!/usr/bin/env python3
"""Writes the model files of issue 45's advise-at-scale benchmark.

usage: advise-models.py chain|sparse N > model.yaml
       advise-models.py parts N K > model.yaml

chain:  N entities, entity i the child of entity i-1 (one-to-many, 3
        children typically, at most 10), one read of each child by _id
        including its parent.
sparse: N entities, entity i the child of one of the 20 before it (a fixed
        pseudo-random choice), one such read and one insert of the child per
        relationship.
parts:  K independent sparse models of N entities each (K x N entities),
        each drawn from a seed of its own; no relationship or operation
        joins two of them.
"""
import sys


def sparse_part(kind, n, seed, prefix):
    """The entities, relationships and operations of one chain or sparse
    model, its names prefixed by `prefix`."""
    ents, rels, ops = [], [], []
    for i in range(n):
        ents += [f"  {prefix}e{i}:", "    count: 1000", "    fields:",
                 "      name: string(20)", "      code: string(8)"]
    for i in range(1, n):
        if kind == "chain":
            p = i - 1
        else:
            seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
            p = i - 1 - (seed >> 33) % min(20, i)
        rels += [f"  {prefix}r{i}:", f"    parent: {prefix}e{p}",
                 f"    child: {prefix}e{i}", "    children: {typical: 3, max: 10}"]
        ops += [f"  {prefix}read{i}:", f"    read: {prefix}e{i}", "    rate: 1",
                "    filter: {_id: eq}", f"    include: [{prefix}r{i}]"]
        if kind != "chain":
            ops += [f"  {prefix}insert{i}:", f"    insert: {prefix}e{i}",
                    f"    links: [{prefix}r{i}]", "    rate: 1"]
    return ents, rels, ops


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    if kind == "parts":
        k = int(sys.argv[3])
        pieces = [sparse_part("sparse", n, 7 + j, f"p{j}") for j in range(k)]
        name = f"parts{k}x{n}"
    else:
        pieces = [sparse_part(kind, n, 7, "")]
        name = f"{kind}{n}"
    out = [f"name: {name}", "entities:"]
    for ents, _, _ in pieces:
        out += ents
    out.append("relationships:")
    for _, rels, _ in pieces:
        out += rels
    out.append("operations:")
    for _, _, ops in pieces:
        out += ops
    print("\n".join(out))


if __name__ == "__main__":
    main()
