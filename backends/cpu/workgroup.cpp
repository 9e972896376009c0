// Fibers for CPU workgroups with barriers; see workgroup.h.
//
// Each invocation runs on its own small stack. A barrier switches back to
// the scheduler, which resumes the next invocation; once every invocation
// has reached the barrier (or finished), the round repeats. So every
// invocation finishes the code before barrier k before any runs past it.
#include "workgroup.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <memory>
#include <vector>

namespace xpu::cpu {

namespace {

constexpr size_t kStackBytes = 256 * 1024;

struct Fiber {
  ucontext_t context;
  void *stack = nullptr;
  bool done = false;
};

struct FiberGroup {
  ucontext_t scheduler;
  std::vector<Fiber> fibers;
  Fiber *current = nullptr;
  // What the starting fiber runs.
  ItemEntry item = nullptr;
  const uint8_t *args = nullptr;
  abi::CpuLaunch *launch = nullptr;
  uint32_t tid[3] = {};

  ~FiberGroup() {
    for (Fiber &f : fibers)
      if (f.stack)
        munmap(f.stack, kStackBytes);
  }

  bool reserve(size_t n) {
    if (fibers.size() < n)
      fibers.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (fibers[i].stack)
        continue;
      void *p = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                     -1, 0);
      if (p == MAP_FAILED)
        return false;
      // A guard page below the stack turns an overflow into a fault.
      mprotect(p, 4096, PROT_NONE);
      fibers[i].stack = p;
    }
    return true;
  }
};

// One per thread that runs workgroups, kept for reuse and freed (stacks
// included) when the thread exits: stream worker threads end with their
// stream.
thread_local std::unique_ptr<FiberGroup> tlsOwned;
thread_local FiberGroup *tlsGroup = nullptr;

void fiberMain() {
  FiberGroup *g = tlsGroup;
  uint32_t tx = g->tid[0], ty = g->tid[1], tz = g->tid[2];
  Fiber *self = g->current;
  g->item(g->args, g->launch, tx, ty, tz);
  self->done = true;
  // Returning resumes uc_link (the scheduler).
}

} // namespace

bool runWithFibers(ItemEntry item, const uint8_t *args, abi::CpuLaunch *launch) {
  if (!tlsGroup) {
    tlsOwned = std::make_unique<FiberGroup>();
    tlsGroup = tlsOwned.get();
  }
  FiberGroup &g = *tlsGroup;
  uint32_t bx = launch->block[0], by = launch->block[1], bz = launch->block[2];
  size_t n = size_t(bx) * by * bz;
  if (!g.reserve(n))
    return false;
  g.item = item;
  g.args = args;
  g.launch = launch;
  launch->fibers = &g;

  // Start each invocation; it runs until its first barrier or its end.
  size_t i = 0;
  for (uint32_t z = 0; z < bz; ++z)
    for (uint32_t y = 0; y < by; ++y)
      for (uint32_t x = 0; x < bx; ++x, ++i) {
        Fiber &f = g.fibers[i];
        f.done = false;
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = f.stack;
        f.context.uc_stack.ss_size = kStackBytes;
        f.context.uc_link = &g.scheduler;
        makecontext(&f.context, fiberMain, 0);
        g.tid[0] = x;
        g.tid[1] = y;
        g.tid[2] = z;
        g.current = &f;
        swapcontext(&g.scheduler, &f.context);
      }
  // Rounds: resume every unfinished invocation past its barrier.
  for (bool pending = true; pending;) {
    pending = false;
    for (size_t k = 0; k < n; ++k) {
      Fiber &f = g.fibers[k];
      if (f.done)
        continue;
      g.current = &f;
      swapcontext(&g.scheduler, &f.context);
      pending |= !f.done;
    }
  }
  launch->fibers = nullptr;
  return true;
}

} // namespace xpu::cpu

extern "C" void __xpu_cpu_barrier(xpu::abi::CpuLaunch *launch) {
  auto *g = static_cast<xpu::cpu::FiberGroup *>(launch->fibers);
  xpu::cpu::Fiber *self = g->current;
  swapcontext(&self->context, &g->scheduler);
}
