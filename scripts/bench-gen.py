#!/usr/bin/env python3
"""Generates the PTX of a benchmark program: N objects of F device functions each, in one of
two shapes (see scripts/bench.sh):

  deep  each object's functions call the next in a chain, the last one calls the next
        object's first; each object has a __device__ global, __constant__ data and a weak
        helper every object defines.
  wide  each function calls the same function of the next object (shallow cross-object
        calls), and every object defines the same W weak template-style functions, which
        its functions call.

Each object also has a kernel: deep, it calls the object's first function; wide, every one of
its functions (so that every function is live). Writes DIR/obj_<i>.ptx.

usage: bench-gen.py SHAPE N DIR [--sm sm_90] [--functions 20] [--weak 16]
"""
import argparse
import os


def header(sm):
    return f".version 8.8\n.target {sm}\n.address_size 64\n\n"


def func_decl(name, linkage):
    return f"{linkage} .func (.param .b32 r) {name} (.param .b32 x)"


def body(lines):
    return "{\n" + "".join(f"\t{line}\n" for line in lines) + "}\n\n"


def call(dst, src, callee, k):
    """A call through the ABI: `dst = callee(src)`."""
    return [
        "{",
        "\t.param .b32 a;",
        "\t.param .b32 b;",
        f"\tst.param.b32 [a], {src};",
        f"\tcall.uni (b), {callee}, (a);",
        f"\tld.param.b32 {dst}, [b];",
        "}",
    ]


def weak_function(name, k):
    return func_decl(name, ".weak") + "\n" + body(
        [
            ".reg .b32 %r<4>;",
            "ld.param.b32 %r1, [x];",
            f"mul.lo.s32 %r2, %r1, {k + 3};",
            f"add.s32 %r3, %r2, {k};",
            "st.param.b32 [r], %r3;",
            "ret;",
        ]
    )


def function(name, i, callees, shape):
    """A function that loads the object's global and constant data and calls `callees`."""
    lines = [
        ".reg .b32 %r<32>;",
        ".reg .pred %p<2>;",
        "ld.param.b32 %r1, [x];",
        f"ld.global.u32 %r2, [g_{i}];",
        "and.b32 %r3, %r1, 1;",
        "shl.b32 %r4, %r3, 2;",
        f"mov.u32 %r5, c_{i};",
        "add.s32 %r6, %r5, %r4;",
        "ld.const.u32 %r7, [%r6];",
        "mad.lo.s32 %r8, %r2, %r7, %r1;",
        "setp.lt.s32 %p1, %r1, 1;",
        "mov.u32 %r20, %r8;",
        "@%p1 bra DONE;",
        "add.s32 %r9, %r1, -1;",
    ]
    acc = "%r20"
    for k, c in enumerate(callees):
        out = f"%r{21 + k % 10}"
        lines += call(out, "%r9", c, k)
        lines.append(f"add.s32 %r20, {acc}, {out};")
    lines += ["DONE:", "st.param.b32 [r], %r20;", "ret;"]
    return func_decl(name, ".visible") + "\n" + body(lines)


def kernel(i, callees):
    """A kernel that calls each of `callees` and sums what they return."""
    lines = [
        ".reg .b32 %r<8>;",
        ".reg .b64 %rd<4>;",
        "ld.param.u64 %rd1, [p];",
        "cvta.to.global.u64 %rd2, %rd1;",
        "ld.global.u32 %r1, [%rd2];",
        "mov.u32 %r3, 0;",
    ]
    for k, c in enumerate(callees):
        lines += call("%r2", "%r1", c, k)
        lines.append("add.s32 %r3, %r3, %r2;")
    lines += ["st.global.u32 [%rd2], %r3;", "ret;"]
    return f".visible .entry k_{i} (.param .u64 p)\n" + body(lines)


def program(shape, i, n, f, w, sm):
    out = [header(sm)]
    out.append(f".visible .global .align 4 .u32 g_{i} = {i};\n")
    # (8 bytes each: 8,192 objects fit the 64 KB of user constant bank.)
    out.append(f".visible .const .align 4 .b8 c_{i}[8] = {{{i % 256},0,0,0,1,0,0,0}};\n\n")
    nxt = i + 1 if i + 1 < n else None
    # Declarations of what other objects define.
    if shape == "deep" and nxt is not None:
        out.append(func_decl(f"f_{nxt}_0", ".extern") + ";\n")
    if shape == "wide" and nxt is not None:
        for j in range(f):
            out.append(func_decl(f"f_{nxt}_{j}", ".extern") + ";\n")
    weak = ["h"] if shape == "deep" else [f"w_{k}" for k in range(w)]
    for name in weak:
        out.append(func_decl(name, ".weak") + ";\n")
    for j in range(f):
        out.append(func_decl(f"f_{i}_{j}", ".visible") + ";\n")
    out.append("\n")
    for k, name in enumerate(weak):
        out.append(weak_function(name, k))
    for j in range(f):
        if shape == "deep":
            callees = [f"f_{i}_{j + 1}"] if j + 1 < f else ([f"f_{nxt}_0"] if nxt is not None else [])
            if j == 0:
                callees.append("h")
        else:
            callees = [f"f_{nxt}_{j}"] if nxt is not None else []
            callees.append(weak[j % len(weak)])
        out.append(function(f"f_{i}_{j}", i, callees, shape))
    # Every function is reached: deep through its chain, wide from the kernel.
    roots = [f"f_{i}_0"] if shape == "deep" else [f"f_{i}_{j}" for j in range(f)]
    out.append(kernel(i, roots))
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", choices=["deep", "wide"])
    ap.add_argument("n", type=int)
    ap.add_argument("dir")
    ap.add_argument("--sm", default="sm_90")
    ap.add_argument("--functions", type=int, default=20)
    ap.add_argument("--weak", type=int, default=16)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    for i in range(a.n):
        with open(os.path.join(a.dir, f"obj_{i}.ptx"), "w") as fh:
            fh.write(program(a.shape, i, a.n, a.functions, a.weak, a.sm))


if __name__ == "__main__":
    main()
