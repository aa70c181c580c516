"""Makes a temporary copy of Räisä et al.'s DP-HMC-experiments run on a current JAX.

Their code calls jax.ops.index_update(A, jax.ops.index[I], V) and
jax.ops.index_update(A, I, V), removed in JAX 0.3.2; the jaxlib they pin (0.1.67)
and every jaxlib before 0.4.13 are not installable from the package registry. This
rewrites each such call, in the copy given as argv[1], to A.at[I].set(V) — the
documented replacement, the same values — and changes nothing else. Prints the
number of calls rewritten per file. Nothing of their code enters privpost.
"""
import pathlib
import sys


def split_args(text, start):
    """The top-level comma-separated arguments of the call whose '(' is at start."""
    depth, args, cur, i = 0, [], [], start + 1
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    raise ValueError("unbalanced call")


def rewrite(text):
    key = "jax.ops.index_update("
    count = 0
    while True:
        at = text.find(key)
        if at < 0:
            return text, count
        args, end = split_args(text, at + len(key) - 1)
        if len(args) != 3:
            raise ValueError(f"index_update with {len(args)} arguments")
        array, index, value = args
        if index.startswith("jax.ops.index[") and index.endswith("]"):
            index = index[len("jax.ops.index["):-1]
        text = text[:at] + f"{array}.at[{index}].set({value})" + text[end + 1:]
        count += 1


for path in sorted(pathlib.Path(sys.argv[1]).glob("*.py")):
    src = path.read_text()
    new, n = rewrite(src)
    if n:
        path.write_text(new)
        print(f"{path.name}: {n} calls rewritten")
