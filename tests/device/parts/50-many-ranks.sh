# Many processes and NCCL on the GPU machine (issue 20): 64 ranks sharing one
# kernel cache directory on CUDA, and the NCCL data-parallel step on every
# CUDA device (one here), NCCL taken from PyTorch's wheel when the system
# has none.
step "64 ranks sharing one cache directory, on cuda"
rm -rf "$run/cache-ranks"
check env XPU_BACKEND=cuda XPU_CACHE_DIR="$root/$run/cache-ranks" "$bin/cache_ranks" --ranks 64

step "NCCL step over xpujit buffers and streams"
if [ -z "${XPU_NCCL_LIBRARY:-}" ]; then
  nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null || true)
  [ -n "$nccl" ] && [ -f "$nccl" ] && export XPU_NCCL_LIBRARY="$nccl"
fi
echo "NCCL: ${XPU_NCCL_LIBRARY:-libnccl.so.2 from the library path}"
check_to "$res/nccl-step.txt" "$bin/nccl_step" --mib 256 --iterations 20
{ echo "# NCCL step"; echo; echo '```'; cat "$res/nccl-step.txt"; echo '```'; } > "$res/nccl.md"
