// ProcStat against this process's own /proc entry, read independently with iostreams.
#include "common/proc_stat.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> fields_from_proc(long pid) {  // [0] is field 3
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(all.substr(all.rfind(')') + 2));
  std::vector<std::string> f;
  for (std::string x; rest >> x;) f.push_back(x);
  return f;
}

TEST(ProcStat, ReadsStateAndNumberedFields) {
  const sl::ProcStat st(::getpid());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.state(), 'R');  // this thread is running while it reads
  const std::vector<std::string> f = fields_from_proc(::getpid());
  EXPECT_EQ(st.number(4), static_cast<unsigned long long>(::getppid()));
  for (int field : {4, 5, 9, 22}) EXPECT_EQ(st.number(field), std::stoull(f[field - 3])) << "field " << field;
  EXPECT_EQ(st.number(3), 0u) << "field 3 is the state letter";
}

TEST(ProcStat, AProcessThatIsNotThereReadsAsNothing) {
  const sl::ProcStat st(0x3fffffffL);  // above any pid_max
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.state(), 0);
  EXPECT_EQ(st.number(22), 0u);
  EXPECT_FALSE(sl::ProcStat(-1).ok());
}

}  // namespace
