#!/bin/sh
# Build Rapfi (github.com/dhbloo/rapfi), the Gomoku/Renju engine we spar against, from a source
# checkout into .bench-envs/rapfi/ (git-ignored): Release, single thread (NO_MULTI_THREADING), no
# command modules (the Gomocup protocol only), and writes .bench-envs/rapfi.sh, the command to give
# `tabletop match --b gomocup:...` or `tabletop bench gomoku --vs ...`.
#
# Usage: scripts/build_rapfi.sh PATH/TO/rapfi-checkout [JOBS]
#   PATH is the repository's root (it holds Rapfi/CMakeLists.txt); JOBS defaults to 2.
#   This script fetches nothing: get the source first (README, "Sparring against Rapfi").
#
# Rapfi runs with its classical evaluation: it reads config.toml from its working directory or
# beside its binary, and without one it falls back to the config compiled into it (pattern
# tables, no network).  The wrapper starts it in .bench-envs/rapfi/, where no config.toml is.
# Rapfi is a yardstick: its moves never go into our books, training data or tuned tables.
set -eu
if [ $# -lt 1 ] || [ ! -f "$1/Rapfi/CMakeLists.txt" ]; then
    echo "usage: $0 PATH/TO/rapfi-checkout [JOBS]  (PATH/Rapfi/CMakeLists.txt must exist)" >&2
    exit 2
fi
source_dir=$(cd "$1/Rapfi" && pwd)
jobs=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/.bench-envs/rapfi"
mkdir -p "$build"
nice -n 10 cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DNO_MULTI_THREADING=ON -DNO_COMMAND_MODULES=ON
nice -n 10 cmake --build "$build" -j "$jobs"
rm -f "$build/config.toml"  # none beside the binary: the compiled-in classical config is used
cat > "$root/.bench-envs/rapfi.sh" <<WRAPPER
#!/bin/sh
# Rapfi over Gomocup, classical evaluation, one thread (written by scripts/build_rapfi.sh)
cd "$build" && exec ./pbrain-rapfi "\$@"
WRAPPER
chmod +x "$root/.bench-envs/rapfi.sh"
echo "built $build/pbrain-rapfi; engine command: $root/.bench-envs/rapfi.sh"
