#include <gtest/gtest.h>

#include <cstdlib>

#include "tensor/caching_allocator.h"

namespace {
int g_raw_allocs = 0, g_raw_frees = 0;
void* counting_alloc(size_t n) {
  ++g_raw_allocs;
  return std::malloc(n);
}
void counting_free(void* p) {
  ++g_raw_frees;
  std::free(p);
}
}  // namespace

TEST(CachingAllocator, ReusesAFreedBlockOfTheSameSizeClass) {
  g_raw_allocs = g_raw_frees = 0;
  sl::CachingAllocator a(counting_alloc, counting_free, "test", 1 << 20);
  void* p = a.allocate(1000);
  a.release(p);
  void* q = a.allocate(900);  // same size class (1024)
  EXPECT_EQ(p, q);
  EXPECT_EQ(g_raw_allocs, 1);
  a.release(q);
}

TEST(CachingAllocator, KeepsAtMostTheCapAndFreesTheRest) {
  g_raw_allocs = g_raw_frees = 0;
  {
    sl::CachingAllocator a(counting_alloc, counting_free, "test", 3000);
    void* b[4];
    for (auto& p : b) p = a.allocate(1024);
    for (auto& p : b) a.release(p);
    EXPECT_LE(a.bytes_cached(), 3000u);
    EXPECT_EQ(g_raw_frees, 2);  // two 1024-byte blocks fit under the cap, two went back
    EXPECT_EQ(a.bytes_in_use(), 0u);
    // Its own counts (what bench_gpu_step reports as cudaMalloc/cudaFree calls) agree.
    EXPECT_EQ(4u, a.raw_allocations());
    EXPECT_EQ(2u, a.raw_frees());
    EXPECT_EQ(3000u, a.max_cached_bytes());
    for (auto& p : b) p = a.allocate(1024);  // two from the cache, two new
    EXPECT_EQ(6u, a.raw_allocations());
    for (auto& p : b) a.release(p);
    a.empty_cache();
    EXPECT_EQ(6u, a.raw_frees());
  }
  EXPECT_EQ(g_raw_frees, 6);  // everything allocated went back
}
