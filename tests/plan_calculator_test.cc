// The calculator: arithmetic and unit conversions answered in code, with errors as values.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "plan/calculator.h"

namespace attest {
namespace {

Calculation MustCalc(const std::string& text) {
  Result<std::optional<Calculation>> r = Calculate(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  if (!r.ok() || !r->has_value()) {
    ADD_FAILURE() << "not a calculation: " << text;
    return {};
  }
  return **r;
}

bool NotCalc(const std::string& text) {
  Result<std::optional<Calculation>> r = Calculate(text);
  return r.ok() && !r->has_value();
}

TEST(CalculatorTest, ScenarioQuestions) {
  const Calculation c = MustCalc("convert 30 C to F");
  EXPECT_DOUBLE_EQ(c.value, 86);
  EXPECT_EQ(c.unit, "°F");
  EXPECT_EQ(c.text, "30 °C = 86 °F");
  const Calculation m = MustCalc("what is 17 * 23");
  EXPECT_DOUBLE_EQ(m.value, 391);
  EXPECT_EQ(m.text, "17 * 23 = 391");
}

TEST(CalculatorTest, PrecedenceAssociativityAndParentheses) {
  EXPECT_DOUBLE_EQ(MustCalc("2 + 3 * 4").value, 14);
  EXPECT_DOUBLE_EQ(MustCalc("(2 + 3) * 4").value, 20);
  EXPECT_DOUBLE_EQ(MustCalc("10 - 4 - 3").value, 3);
  EXPECT_DOUBLE_EQ(MustCalc("2 ^ 3 ^ 2").value, 512);  // right-associative
  EXPECT_DOUBLE_EQ(MustCalc("-2 ^ 2").value, -4);
  EXPECT_DOUBLE_EQ(MustCalc("2 ^ -1").value, 0.5);
  EXPECT_DOUBLE_EQ(MustCalc("17 % 5").value, 2);
  EXPECT_DOUBLE_EQ(MustCalc("1.5 * 4").value, 6);
  EXPECT_DOUBLE_EQ(MustCalc("what's 1,000 / 8?").value, 125);
  EXPECT_DOUBLE_EQ(MustCalc("((1))+((2))").value, 3);
  EXPECT_DOUBLE_EQ(MustCalc(std::string(20, '(') + "1+1" + std::string(20, ')')).value, 2);
  EXPECT_EQ(MustCalc("(2+3)*-4").expression, "(2 + 3) * -4");
}

TEST(CalculatorTest, Words) {
  EXPECT_DOUBLE_EQ(MustCalc("6 times 7").value, 42);
  EXPECT_DOUBLE_EQ(MustCalc("what is 6 x 7").value, 42);
  EXPECT_DOUBLE_EQ(MustCalc("calculate 10 divided by 4").value, 2.5);
  EXPECT_DOUBLE_EQ(MustCalc("3 plus 4 minus 1").value, 6);
  EXPECT_DOUBLE_EQ(MustCalc("2 to the power of 10").value, 1024);
  EXPECT_DOUBLE_EQ(MustCalc("what is 20% of 150").value, 30);
  EXPECT_DOUBLE_EQ(MustCalc("6 × 7").value, 42);
}

TEST(CalculatorTest, Conversions) {
  EXPECT_NEAR(MustCalc("100 F in C").value, 37.7778, 1e-4);
  EXPECT_NEAR(MustCalc("0 c to k").value, 273.15, 1e-9);
  EXPECT_NEAR(MustCalc("30°C to °F").value, 86, 1e-9);
  EXPECT_NEAR(MustCalc("convert 10 degrees celsius to fahrenheit").value, 50, 1e-9);
  EXPECT_NEAR(MustCalc("10 km to mi").value, 6.21371, 1e-5);
  EXPECT_NEAR(MustCalc("5 in to cm").value, 12.7, 1e-9);  // "in" as a unit, "to" as the connector
  EXPECT_NEAR(MustCalc("how many feet in 3 m").value, 9.84252, 1e-5);
  EXPECT_NEAR(MustCalc("2 kg to lb").value, 4.40925, 1e-5);
  EXPECT_NEAR(MustCalc("16 oz in g").value, 453.592, 1e-3);
  EXPECT_NEAR(MustCalc("1 gal to l").value, 3.78541, 1e-5);
  EXPECT_NEAR(MustCalc("1 GiB to MB").value, 1073.741824, 1e-6);
  EXPECT_NEAR(MustCalc("1 GB to MiB").value, 953.674, 1e-3);
  EXPECT_NEAR(MustCalc("90 min to h").value, 1.5, 1e-12);
  EXPECT_NEAR(MustCalc("2 days in hours").value, 48, 1e-12);
  EXPECT_NEAR(MustCalc("5km to m").value, 5000, 1e-9);
  EXPECT_EQ(MustCalc("10 km to mi").text, "10 km = 6.21371 mi");
}

TEST(CalculatorTest, NotCalculations) {
  EXPECT_TRUE(NotCalc("What changed in the latest ExampleDB release?"));
  EXPECT_TRUE(NotCalc("what is 5"));
  EXPECT_TRUE(NotCalc("-5"));
  EXPECT_TRUE(NotCalc("what is logical replication"));
  EXPECT_TRUE(NotCalc("ERR-1234"));
  EXPECT_TRUE(NotCalc("2026-09-01"));
  EXPECT_TRUE(NotCalc("ExampleDB 15.4.1 - 2"));
  EXPECT_TRUE(NotCalc("what is x"));
  EXPECT_TRUE(NotCalc(""));
  EXPECT_TRUE(NotCalc("10 apples to oranges"));
}

TEST(CalculatorTest, ErrorsAreValues) {
  const auto code = [](const std::string& t) { return Calculate(t).status().code(); };
  EXPECT_EQ(code("1 / 0"), StatusCode::kInvalidArgument);
  EXPECT_NE(Calculate("1/0").status().message().find("division by zero"), std::string::npos);
  EXPECT_EQ(code("5 % 0"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("(1 + 2"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("2 + * 3"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("10 ^ 400"), StatusCode::kInvalidArgument);  // not finite
  EXPECT_EQ(code("5 kg to km"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(std::string(40, '(') + "1+1" + std::string(40, ')')), StatusCode::kInvalidArgument);
  std::string long_sum = "1";
  for (int i = 0; i < 200; ++i) long_sum += "+1";
  EXPECT_EQ(code(long_sum), StatusCode::kInvalidArgument);
  std::string deep_unary(60, '-');
  EXPECT_EQ(code("1 + " + deep_unary + "1"), StatusCode::kInvalidArgument);
}

TEST(CalculatorTest, FormatNumber) {
  EXPECT_EQ(FormatCalcNumber(86, 6), "86");
  EXPECT_EQ(FormatCalcNumber(-3, 6), "-3");
  EXPECT_EQ(FormatCalcNumber(0.5, 6), "0.5");
  EXPECT_EQ(FormatCalcNumber(1.0 / 3.0, 6), "0.333333");
}

}  // namespace
}  // namespace attest
