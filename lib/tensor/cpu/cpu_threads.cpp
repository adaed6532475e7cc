#include "tensor/cpu/cpu_threads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace sl::cpu {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Workers spin briefly after a job (kernels come in bursts: a few microseconds apart) and
// then sleep, so that they do not hold a core while OpenBLAS's threads run a GEMM.
constexpr auto kSpin = std::chrono::microseconds(30);

class Pool {
 public:
  ~Pool() { resize(1); }

  int threads() const { return threads_; }

  void resize(int n) {
    n = std::max(1, n);
    if (n == threads_) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    gen_.fetch_add(1);
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
    quit_ = false;
    threads_ = n;
    // Each worker starts from the generation of now: a job posted before the thread runs is
    // still seen as new.
    const uint64_t start = gen_.load();
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, start] { work(start); });
  }

  void run(size_t n, size_t grain, RangeFn fn) {
    // A few chunks per thread, claimed from a shared counter: whoever is on a core takes the
    // next one, so a worker the OS has not scheduled yet (OpenBLAS's idle threads spin on the
    // same cores) delays nothing: the caller takes its chunks too.
    const size_t chunks = std::min<size_t>(4 * threads_, n / std::max<size_t>(grain, 1));
    if (chunks < 2 || threads_ < 2 || busy_.exchange(true)) {
      fn.call(fn.object, 0, n);
      return;
    }
    fn_ = fn;
    n_ = n;
    chunks_ = chunks;
    done_.store(0);
    const uint64_t g = gen_.load() + 1;
    claim_.store(g << 32);  // (generation, next chunk): a late worker's claim on g-1 fails
    gen_.store(g);          // seq_cst, then sleepers_: pairs with the worker's sleepers_, then gen_
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      cv_.notify_all();
    }
    take_chunks(g);
    while (done_.load(std::memory_order_acquire) < chunks) cpu_relax();
    busy_.store(false);
  }

 private:
  // Claims and runs chunks of job g until none is left.
  void take_chunks(uint64_t g) {
    uint64_t c = claim_.load();
    for (;;) {
      if ((c >> 32) != g || (c & 0xffffffffu) >= chunks_) return;
      if (!claim_.compare_exchange_weak(c, c + 1)) continue;
      const size_t i = c & 0xffffffffu;
      const size_t n = n_.load(), k = chunks_.load();
      const size_t b = n * i / k, e = n * (i + 1) / k;
      if (b < e) fn_.call(fn_.object, b, e);
      done_.fetch_add(1, std::memory_order_release);
      c = claim_.load();
    }
  }

  void work(uint64_t seen) {
    for (;;) {
      uint64_t g;
      const auto t0 = std::chrono::steady_clock::now();
      for (int spins = 0; (g = gen_.load(std::memory_order_acquire)) == seen; ++spins) {
        if (spins % 64 == 63 && std::chrono::steady_clock::now() - t0 > kSpin) {
          std::unique_lock<std::mutex> lock(mu_);
          sleepers_.fetch_add(1);
          cv_.wait(lock, [&] { return gen_.load() != seen || quit_; });
          sleepers_.fetch_sub(1);
        }
        cpu_relax();
      }
      seen = g;
      if (quit_) return;
      take_chunks(g);
    }
  }

  int threads_ = 1;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> gen_{0}, claim_{0};
  std::atomic<size_t> done_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> busy_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool quit_ = false;
  // The job: written by the caller before it publishes the generation; atomics because a
  // worker may read chunks_ of the next job before its claim on the old one fails.
  RangeFn fn_{nullptr, nullptr};  // read only after a successful claim on the current job
  std::atomic<size_t> n_{0}, chunks_{0};
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void set_kernel_threads(int n) { pool().resize(n); }
int kernel_threads() { return pool().threads(); }

void parallel_for(size_t n, size_t grain, RangeFn fn) { pool().run(n, grain, fn); }

}  // namespace sl::cpu
