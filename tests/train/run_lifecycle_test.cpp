// When a run validates: every valid.every steps, and every valid.final_every steps in the last
// valid.final_fraction of max_steps (issue 27: steps-to-target resolved finely near the end).
#include "train/run_lifecycle.h"

#include <gtest/gtest.h>

#include <vector>

namespace sl {
namespace {

std::vector<int64_t> validations(int64_t max_steps, int64_t every, int64_t final_every,
                                 double final_fraction) {
  TrainConfig t;
  t.max_steps = max_steps;
  ValidConfig v;
  v.every = every;
  v.final_every = final_every;
  v.final_fraction = final_fraction;
  RunLifecycle life(t, v, nullptr, 0, 0.0);
  std::vector<int64_t> at;
  for (int64_t s = 1; s <= max_steps; ++s)
    if (life.validation_due(s)) at.push_back(s);
  return at;
}

TEST(RunLifecycle, ValidatesEveryNStepsWithoutAFinalSchedule) {
  EXPECT_EQ(validations(400, 100, 0, 0.0), (std::vector<int64_t>{100, 200, 300, 400}));
  EXPECT_EQ(validations(400, 100, 25, 0.0), (std::vector<int64_t>{100, 200, 300, 400}));
  EXPECT_TRUE(validations(400, 0, 0, 0.0).empty());
}

TEST(RunLifecycle, ValidatesDenselyInTheFinalFraction) {
  // 400 steps, the last 25% = steps 301..400 every 25, before that every 100.
  EXPECT_EQ(validations(400, 100, 25, 0.25),
            (std::vector<int64_t>{100, 200, 300, 325, 350, 375, 400}));
  // A final fraction alone (every = 0): only the final schedule.
  EXPECT_EQ(validations(100, 0, 10, 0.3), (std::vector<int64_t>{80, 90, 100}));
}

}  // namespace
}  // namespace sl
