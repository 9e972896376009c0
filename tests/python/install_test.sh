#!/usr/bin/env bash
# The README's Python install, as a user runs it: a fresh virtual environment
# of Debian's python3 (seeing Debian's NumPy), `pip install ./bindings/python`
# with no network, then saxpy from outside the checkout. Also checks the
# wheel's platform tag with every python3 found, and that the install left
# nothing behind in the source tree.
# Usage: install_test.sh SOURCE_DIR SCRATCH_DIR LIBRARY
set -euo pipefail
src=$1 scratch=$2 lib=$3
export XPU_LIBRARY=$lib PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
rm -rf "$scratch" && mkdir -p "$scratch"
before=$(cd "$src/bindings/python" && find . -print | sort)

pythons=(/usr/bin/python3)
other=$(command -v python3 || true)
[ -n "$other" ] && [ "$(readlink -f "$other")" != "$(readlink -f /usr/bin/python3)" ] && pythons+=("$other")
arch=$(uname -m)
for py in "${pythons[@]}"; do
  out="$scratch/wheel-$(basename "$(readlink -f "$py")")"
  "$py" -m pip wheel -q --no-deps -w "$out" "$src/bindings/python"
  wheel=$(ls "$out"/*.whl)
  case "$(basename "$wheel")" in
    xpujit-*-py3-none-linux_$arch.whl) echo "$py: $(basename "$wheel")" ;;
    *) echo "$py: wrong wheel tag: $(basename "$wheel")"; exit 1 ;;
  esac
done

/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install -q "$src/bindings/python"
# From elsewhere, without XPU_LIBRARY: the installed package carries its library.
cd "$scratch"
env -u XPU_LIBRARY "$scratch/venv/bin/python" -c '
import xpujit, pathlib, sys
where = pathlib.Path(xpujit._lib.path).resolve()
assert where.parent == pathlib.Path(xpujit.__file__).resolve().parent, where
print("loaded", where)'
env -u XPU_LIBRARY "$scratch/venv/bin/python" "$src/examples/saxpy.py"

after=$(cd "$src/bindings/python" && find . -print | sort)
if [ "$before" != "$after" ]; then
  echo "the install left files in the source tree:"; diff <(echo "$before") <(echo "$after"); exit 1
fi
echo "python install: wheel tags right, venv install ran saxpy, source tree untouched"
