// RaiseOpenFileLimit (server/open_file_limit.h): `attest serve` raises the soft RLIMIT_NOFILE to the
// hard limit when --max-connections needs more, and says so when even the hard limit is too low.
// Each case lowers this test process's own soft limit first and restores it after.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "server/open_file_limit.h"

namespace attest::http {
namespace {

class OpenFileLimitTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved_), 0); }
  void TearDown() override { setrlimit(RLIMIT_NOFILE, &saved_); }
  // Sets the soft limit; false (the case is skipped) when the hard limit is below it.
  bool SetSoft(rlim_t soft) {
    if (saved_.rlim_max != RLIM_INFINITY && saved_.rlim_max < soft) return false;
    rlimit l = saved_;
    l.rlim_cur = soft;
    return setrlimit(RLIMIT_NOFILE, &l) == 0;
  }
  rlim_t Soft() const {
    rlimit l{};
    getrlimit(RLIMIT_NOFILE, &l);
    return l.rlim_cur;
  }
  rlimit saved_{};
};

TEST_F(OpenFileLimitTest, ALowSoftLimitIsRaisedToTheHardLimit) {
  const size_t connections = 2000;
  if (saved_.rlim_max != RLIM_INFINITY && saved_.rlim_max < connections + kReservedDescriptors) {
    GTEST_SKIP() << "the hard open-file limit " << saved_.rlim_max << " is below what this case needs";
  }
  ASSERT_TRUE(SetSoft(256));
  OpenFileLimit r = RaiseOpenFileLimit(connections);
  EXPECT_TRUE(r.raised);
  EXPECT_EQ(r.before, 256u);
  EXPECT_EQ(r.soft, Soft());
  EXPECT_GE(Soft(), connections + kReservedDescriptors);
  if (saved_.rlim_max != RLIM_INFINITY) EXPECT_EQ(Soft(), saved_.rlim_max);
  EXPECT_EQ(r.warning, "");
}

TEST_F(OpenFileLimitTest, ASufficientSoftLimitIsLeftAlone) {
  ASSERT_TRUE(SetSoft(1024));
  OpenFileLimit r = RaiseOpenFileLimit(100);
  EXPECT_FALSE(r.raised);
  EXPECT_EQ(Soft(), 1024u);
  EXPECT_EQ(r.warning, "");
}

TEST_F(OpenFileLimitTest, AHardLimitBelowTheNeedIsReportedNamingTheFlag) {
  if (saved_.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no finite hard open-file limit to exceed";
  const size_t connections = static_cast<size_t>(saved_.rlim_max) + 1;
  ASSERT_TRUE(SetSoft(64));
  OpenFileLimit r = RaiseOpenFileLimit(connections);
  EXPECT_EQ(Soft(), saved_.rlim_max);  // raised as far as it goes
  EXPECT_NE(r.warning.find("--max-connections " + std::to_string(connections)), std::string::npos) << r.warning;
  EXPECT_NE(r.warning.find("hard limit"), std::string::npos) << r.warning;
}

}  // namespace
}  // namespace attest::http
