// Unit tests of the handle table: stale handles never name a live object
// again (retired slots), whatever the number of create/release cycles, and
// a full table refuses instead of handing out a bad handle.
#include "runtime/handles.h"

#include <doctest/doctest.h>

#include <set>

using namespace xpu::rt;

namespace {
struct Thing : Object {};
} // namespace

TEST_CASE("a released handle stays invalid after 2^24 + 1 reuses of its slot") {
  // With 24-bit generations the first handle came back after 2^24 cycles.
  HandleTable table;
  uint64_t first = table.add(Kind::event, std::make_shared<Thing>());
  REQUIRE(first);
  REQUIRE(table.remove(first, Kind::event));
  uint64_t last = 0, repeats = 0;
  for (uint32_t i = 0; i < (1u << 24) + 1; ++i) {
    last = table.add(Kind::event, std::make_shared<Thing>());
    repeats += last == first || last == 0;
    if (i + 1 < (1u << 24) + 1)
      table.remove(last, Kind::event);
  }
  CHECK(repeats == 0);
  CHECK(table.lookup(first, Kind::event) == nullptr);
  CHECK(table.remove(first, Kind::event) == nullptr);
  CHECK(table.lookup(last, Kind::event) != nullptr);
}

TEST_CASE("a slot at its last generation retires: no handle value is issued twice") {
  constexpr uint32_t kGenerations = 5;
  HandleTable table(kGenerations, /*maxSlots=*/3);
  std::set<uint64_t> issued;
  // 3 slots x 5 generations: 15 handles in all, each a new value.
  for (uint32_t i = 0; i < 3 * kGenerations; ++i) {
    uint64_t h = table.add(Kind::buffer, std::make_shared<Thing>());
    REQUIRE(h);
    CHECK(issued.insert(h).second);
    REQUIRE(table.remove(h, Kind::buffer));
  }
  CHECK(table.retiredSlots() == 3);
  // Every slot is retired: the table refuses rather than reuse a value.
  CHECK(table.add(Kind::buffer, std::make_shared<Thing>()) == 0);
  for (uint64_t h : issued)
    CHECK(table.lookup(h, Kind::buffer) == nullptr);
}

TEST_CASE("a full table refuses; releasing makes room") {
  HandleTable table(HandleTable::kMaxGeneration, /*maxSlots=*/2);
  uint64_t a = table.add(Kind::stream, std::make_shared<Thing>());
  uint64_t b = table.add(Kind::stream, std::make_shared<Thing>());
  REQUIRE(a);
  REQUIRE(b);
  CHECK(table.add(Kind::stream, std::make_shared<Thing>()) == 0);
  CHECK(handleTableFull(Kind::stream).code() == XPU_ERROR_OUT_OF_MEMORY);
  REQUIRE(table.remove(a, Kind::stream));
  uint64_t c = table.add(Kind::stream, std::make_shared<Thing>());
  CHECK(c);
  CHECK(c != a);
  CHECK(table.lookup(a, Kind::stream) == nullptr);
}

TEST_CASE("wrong kind, zero index and foreign bits are not handles") {
  HandleTable table;
  uint64_t h = table.add(Kind::kernel, std::make_shared<Thing>());
  REQUIRE(h);
  CHECK(table.lookup(h, Kind::module) == nullptr);
  CHECK(table.lookup(h & ~uint64_t(0xFFFFFF), Kind::kernel) == nullptr);
  CHECK(table.lookup(h + 1, Kind::kernel) == nullptr);             // another slot
  CHECK(table.lookup(h ^ (uint64_t(1) << 30), Kind::kernel) == nullptr); // generation
  CHECK(table.lookup(~uint64_t(0), Kind::kernel) == nullptr);
  CHECK(table.lookup(h, Kind::kernel) != nullptr);
}
