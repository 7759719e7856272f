// Keeps attest_test_support a real library even before any shared helper exists.
namespace attest::testing_support {}
