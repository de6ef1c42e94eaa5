#!/usr/bin/env python3
"""Writes the two strace corpus logs of seed 000 (the KFD userptr EAGAIN
storm and its near miss). Run once; the outputs are committed. Deterministic:
the per-call times come from a fixed-seed generator, and the call rate and
span are seed 000's (about 3,770 calls from 16:20:09.8 to 16:23:28.4). Only
the first and last 60 failing calls are kept, with the elision a user makes
when pasting, so the file stays small."""
import random, sys, os

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "logs")
rng = random.Random(267)

def ts(sec):
    h = 16; m = 0
    sec_total = 16 * 3600 + sec
    h, rem = divmod(sec_total, 3600)
    m, s = divmod(rem, 60)
    return "%02d:%02d:%09.6f" % (h, m, s)

IOCTL = "ioctl(3, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0x7ffedcee90e0)"

def storm():
    L = []
    L.append("$ strace -f --seccomp-bpf -T -tt -e trace=ioctl -o /dev/stderr python serve/server.py --engine strata --config configs/strata-2x7900.json")
    L.append("[strata] starting engine: strata generate --config configs/strata-2x7900.json --resident-budget-gib 40 --port 8080")
    L.append("strata generate: strata 0.1.44.1 (release), ROCm 6.4.2, HIP 6.4.43483")
    L.append("strata generate: GPU 0: AMD Radeon RX 7900 XTX (gfx1100), 24.0 GiB")
    L.append("strata generate: GPU 1: AMD Radeon RX 7900 XTX (gfx1100), 24.0 GiB")
    L.append("strata generate: layer split 24,24 (2 GPUs)")
    L.append("strata generate: FileExpertSource: resident budget 40 GiB -> cache complement 28.47 GiB (mapped | portable)")
    t0 = 20 * 60 + 9.8  # 16:20:09.8
    t = t0 - 0.41
    L.append("[pid 91544] %s mmap(NULL, 30571532288, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0) = 0x7c4843cb7000 <0.000021>" % ts(t)); t += 0.000051
    L.append("[pid 91544] %s mmap(0x7c4843e00000, 30569431040, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7c4843e00000 <0.000014>" % ts(t)); t += 0.000030
    L.append("[pid 91544] %s madvise(0x7c4843e00000, 30569431040, MADV_HUGEPAGE) = 0 <0.000009>" % ts(t))
    # 3,770 calls over 198.6 s: the first takes 2.34 s, the rest ~52 ms each.
    n = 3770
    durs = [2.336246] + [0.0]*(n-2)
    rest = 198.6 - 2.336246 - 0.34
    for i in range(1, n-1):
        durs[i] = rng.uniform(0.030, 0.075)
    scale = rest / sum(durs[1:n-1])
    for i in range(1, n-1):
        durs[i] *= scale
    t = t0
    shown = set(range(0, 60)) | set(range(n-61, n-1))
    elided = False
    for i in range(n-1):
        if i in shown:
            L.append("[pid 91544] %s %s = -1 EAGAIN (Resource temporarily unavailable) <%.6f>" % (ts(t), IOCTL, durs[i]))
        elif not elided:
            L.append("... (the same call again, %d more times, trimmed from the paste)" % (n - 1 - len(shown)))
            elided = True
        t += durs[i] + 0.000030
    L.append("[pid 91544] %s %s = 0 <0.341127>" % (ts(t), IOCTL)); t += 0.341127
    L.append("[pid 91544] %s ioctl(3, AMDKFD_IOC_MAP_MEMORY_TO_GPU, 0x7ffedcee9150) = 0 <0.288934>" % ts(t)); t += 0.29
    L.append("strata generate: FileExpertSource: copying 28.47 GiB of experts into the complement")
    L.append("strata generate: FileExpertSource: mapped pinned cache complement ready: resident 28.47 GiB, pinned 28.47 GiB in 223 s; page-locked and mapped")
    L.append("strata generate: FileExpertSource: 0 blob reads from the file")
    L.append("strata generate: prompt chunk 8192")
    L.append("[strata] engine ready after 291 s (serve/server.py:318)")
    return L

def few():
    L = []
    L.append("$ strace -f --seccomp-bpf -T -tt -e trace=ioctl -o /dev/stderr python serve/server.py --engine strata --config configs/strata-2x7900.json")
    L.append("[strata] starting engine: strata generate --config configs/strata-2x7900.json --resident-budget-gib 40 --port 8080")
    L.append("strata generate: strata 0.1.44.1 (release), ROCm 6.4.2, HIP 6.4.43483")
    L.append("strata generate: GPU 0: AMD Radeon RX 7900 XTX (gfx1100), 24.0 GiB")
    L.append("strata generate: GPU 1: AMD Radeon RX 7900 XTX (gfx1100), 24.0 GiB")
    L.append("strata generate: layer split 24,24 (2 GPUs)")
    L.append("strata generate: FileExpertSource: resident budget 40 GiB -> cache complement 28.47 GiB (mapped | portable)")
    t = 9 * 60 + 11.2
    L.append("[pid 88310] %s mmap(NULL, 30571532288, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0) = 0x7f1a03cb7000 <0.000019>" % ts(t)); t += 0.00005
    L.append("[pid 88310] %s mmap(0x7f1a03e00000, 30569431040, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7f1a03e00000 <0.000012>" % ts(t)); t += 0.00003
    L.append("[pid 88310] %s madvise(0x7f1a03e00000, 30569431040, MADV_HUGEPAGE) = 0 <0.000008>" % ts(t)); t += 0.00002
    L.append("[pid 88310] %s %s = -1 EAGAIN (Resource temporarily unavailable) <0.063404>" % (ts(t), IOCTL)); t += 0.06343
    L.append("[pid 88310] %s %s = -1 EAGAIN (Resource temporarily unavailable) <0.058117>" % (ts(t), IOCTL)); t += 0.05815
    L.append("[pid 88310] %s %s = 0 <2.904551>" % (ts(t), IOCTL)); t += 2.904551
    L.append("[pid 88310] %s ioctl(3, AMDKFD_IOC_MAP_MEMORY_TO_GPU, 0x7ffc1a2e9150) = 0 <0.291207>" % ts(t))
    L.append("strata generate: FileExpertSource: copying 28.47 GiB of experts into the complement")
    L.append("strata generate: FileExpertSource: mapped pinned cache complement ready: resident 28.47 GiB, pinned 28.47 GiB in 18 s; page-locked and mapped")
    L.append("strata generate: FileExpertSource: 0 blob reads from the file")
    L.append("strata generate: prompt chunk 8192")
    L.append("[strata] engine ready after 61 s (serve/server.py:318)")
    return L

for name, fn in (("strata-kfd-eagain-storm.log", storm), ("strata-kfd-eagain-few.log", few)):
    with open(os.path.join(out, name), "w") as f:
        f.write("\n".join(fn()) + "\n")
