// The learning-rate schedules against values worked out by hand.
#include <gtest/gtest.h>

#include "train/lr_schedule.h"

namespace sl {
namespace {

TEST(LrSchedule, InvSqrtWarmsUpThenDecays) {
  LrSchedule s{1.0, 100, "inv_sqrt"};
  EXPECT_DOUBLE_EQ(s.at(50), 0.5);
  EXPECT_DOUBLE_EQ(s.at(100), 1.0);
  EXPECT_DOUBLE_EQ(s.at(400), 0.5);  // sqrt(100 / 400)
}

TEST(LrSchedule, LinearAnnealsToZeroAtTheLastStep) {
  LrSchedule s{2.0, 100, "linear", 1100};
  EXPECT_DOUBLE_EQ(s.at(50), 1.0);    // warm-up: 2 * 50/100
  EXPECT_DOUBLE_EQ(s.at(100), 2.0);   // peak
  EXPECT_DOUBLE_EQ(s.at(600), 1.0);   // 2 * (1100 - 600) / (1100 - 100)
  EXPECT_DOUBLE_EQ(s.at(1100), 0.0);  // annealed at max_steps
  EXPECT_DOUBLE_EQ(s.at(1200), 0.0);  // never negative (a resumed run with more steps)
}

TEST(LrSchedule, LinearWithoutWarmup) {
  LrSchedule s{1.0, 0, "linear", 10};
  EXPECT_DOUBLE_EQ(s.at(1), 0.9);
  EXPECT_DOUBLE_EQ(s.at(5), 0.5);
}

TEST(LrSchedule, ConstantAfterWarmup) {
  LrSchedule s{1.0, 10, "constant"};
  EXPECT_DOUBLE_EQ(s.at(5), 0.5);
  EXPECT_DOUBLE_EQ(s.at(1000), 1.0);
}

}  // namespace
}  // namespace sl
