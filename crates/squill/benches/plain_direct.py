"""A plain direct write, the way `generate data --direct` writes a file, with
nothing generated: the peer for `generate-fresh.sh`.

    python3 plain_direct.py PATH BYTES

Four stages of 4 MiB on huge pages (aligned to 2 MiB and advised, as squill's
are), each filled with text (a copy, as squill's writer copies batches in)
and written at its offset with O_DIRECT, one write at a time; the tail past
the last whole stage through the page cache; fsync; rename into place.
With NOCOPY=1 in the environment, each stage is filled once and written again
and again without the copy: the least a writer can do per byte.

Prints the seconds from before the stages are made to after the rename:
fresh memory, writes and fsync, like squill's own timing of `generate data`.
Linux only (O_DIRECT, MADV_HUGEPAGE).
"""

import ctypes
import mmap
import os
import sys
import time

STAGE = 4 << 20
HUGE = 2 << 20


def main() -> None:
    path, total = sys.argv[1], int(sys.argv[2])
    copy = not os.environ.get("NOCOPY")
    line = b'{"_id":{"$oid":"6553f100c1010000000013cd"},"level":"info","message":"plain"}\n'
    text = (line * (STAGE // len(line) + 1))[:STAGE]
    started = time.perf_counter()
    maps, stages = [], []
    for _ in range(4):
        # THP backs only whole, aligned 2 MiB: map one more and align.
        m = mmap.mmap(-1, STAGE + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        m.madvise(mmap.MADV_HUGEPAGE)
        at = -ctypes.addressof(ctypes.c_char.from_buffer(m)) % HUGE
        maps.append(m)
        stages.append(memoryview(m)[at : at + STAGE])
        if not copy:
            stages[-1][:] = text
    tmp = f"{path}.tmp-{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o644)
    whole = total - total % STAGE
    offset, i = 0, 0
    while offset < whole:
        stage = stages[i % len(stages)]
        if copy:
            stage[:] = text
        written = os.pwrite(fd, stage, offset)
        if written != STAGE:
            sys.exit(f"plain_direct: short write at {offset}: {written} bytes")
        offset += STAGE
        i += 1
    os.close(fd)
    with open(tmp, "ab") as f:
        f.write(text[: total - whole])
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)
    print(f"{time.perf_counter() - started:.3f}")
    for s in stages:
        s.release()


if __name__ == "__main__":
    main()
