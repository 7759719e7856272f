// Time cues of a question, resolved against the injected clock (`today`).
#include <algorithm>
#include <map>

#include "plan/plan_internal.h"

namespace attest::plan_internal {
namespace {

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// Same day `months` months earlier, clamped to the month's length.
std::string MonthsBefore(const Ymd& t, int months) {
  int total = t.y * 12 + (t.m - 1) - months;
  if (total < 0) total = 0;
  const int y = total / 12, m = total % 12 + 1;
  return FormatYmd(y, m, std::min(t.d, DaysInMonth(y, m)));
}

std::optional<int> MonthNumber(std::string_view w) {
  static const std::map<std::string_view, int> kMonths = {
      {"january", 1}, {"jan", 1},  {"february", 2}, {"feb", 2},  {"march", 3},     {"mar", 3},
      {"april", 4},   {"apr", 4},  {"may", 5},      {"june", 6}, {"jun", 6},       {"july", 7},
      {"jul", 7},     {"august", 8}, {"aug", 8},    {"september", 9}, {"sep", 9},  {"sept", 9},
      {"october", 10}, {"oct", 10}, {"november", 11}, {"nov", 11}, {"december", 12}, {"dec", 12}};
  const auto it = kMonths.find(w);
  if (it == kMonths.end()) return std::nullopt;
  return it->second;
}

std::optional<int> Year(std::string_view w) {
  if (w.size() != 4 || !IsAllDigits(w)) return std::nullopt;
  const int y = std::stoi(std::string(w));
  if (y < 1900 || y > 2199) return std::nullopt;
  return y;
}

std::optional<int> SmallNumber(std::string_view w) {
  static const std::map<std::string_view, int> kWords = {
      {"one", 1}, {"two", 2}, {"three", 3}, {"four", 4}, {"five", 5}, {"six", 6}, {"seven", 7},
      {"eight", 8}, {"nine", 9}, {"ten", 10}, {"eleven", 11}, {"twelve", 12}, {"fifteen", 15},
      {"twenty", 20}, {"thirty", 30}, {"forty", 40}, {"fifty", 50}, {"sixty", 60}, {"ninety", 90},
      {"a", 1}, {"an", 1}, {"few", 3}, {"several", 3}};
  if (IsAllDigits(w) && w.size() <= 4) return std::stoi(std::string(w));
  const auto it = kWords.find(w);
  if (it == kWords.end()) return std::nullopt;
  return it->second;
}

}  // namespace

void ExtractTime(std::vector<Word>* words_ptr, std::string_view today, PlanTime* time, bool* latest_cue) {
  std::vector<Word>& words = *words_ptr;
  time->resolved_at = std::string(today);
  *latest_cue = false;
  const Ymd t = *ParseYmd(today);
  const auto word = [&](size_t k) -> std::string_view {
    return k < words.size() ? std::string_view(words[k].lower) : std::string_view();
  };
  const auto mark = [&](size_t from, size_t count) {
    for (size_t k = from; k < from + count && k < words.size(); ++k) words[k].role = Role::kTime;
  };
  bool latest_is_current = false;
  bool have_range = false;
  const auto set_range = [&](std::string relative, std::string from, std::string to) {
    if (have_range) return;  // the first range cue wins
    have_range = true;
    time->relative = std::move(relative);
    time->from = std::move(from);
    time->to = std::move(to);
  };
  std::vector<std::string> iso_dates;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string_view w = word(i);
    // Synonyms: "most recent", "up-to-date", "the last release|version" (the newest one).
    const bool last_release = (w == "last" || w == "final") &&
                              (word(i + 1) == "release" || word(i + 1) == "version" || word(i + 1) == "releases");
    if (w == "latest" || w == "newest" || w == "up-to-date" || last_release ||
        (w == "recent" && i > 0 && word(i - 1) == "most")) {
      *latest_cue = true;
      mark(w == "recent" ? i - 1 : i, w == "recent" ? 2 : 1);
    } else if (w == "current" || w == "currently" || w == "nowadays" || w == "presently" ||
               (w == "present" && i > 0 && word(i - 1) == "at") || (w == "now" && i > 0 && word(i - 1) == "right")) {
      *latest_cue = true;
      latest_is_current = true;
      mark(w == "present" || w == "now" ? i - 1 : i, w == "present" || w == "now" ? 2 : 1);
    } else if ((w == "ytd") || (w == "year" && word(i + 1) == "to" && word(i + 2) == "date")) {
      set_range("this_year", FormatYmd(t.y, 1, 1), std::string(today));
      mark(i, w == "ytd" ? 1 : 3);
    } else if ((w == "between" || w == "from") && Year(word(i + 1)) &&
               (word(i + 2) == "and" || word(i + 2) == "to" || word(i + 2) == "until" || word(i + 2) == "through") &&
               Year(word(i + 3)) && *Year(word(i + 1)) <= *Year(word(i + 3))) {
      // "between 2022 and 2024", "from 2022 to 2024": both years whole. The years stay words of
      // the question (not marked): "known as what from 1988 to 1996" is also about them.
      set_range("explicit", FormatYmd(*Year(word(i + 1)), 1, 1), FormatYmd(*Year(word(i + 3)), 12, 31));
      mark(i, 1);
    } else if (w == "after" && Year(word(i + 1))) {
      set_range("since", FormatYmd(*Year(word(i + 1)) + 1, 1, 1), std::string(today));
      mark(i, 1);
    } else if (w == "this" && (word(i + 1) == "year" || word(i + 1) == "quarter" ||
                               word(i + 1) == "month" || word(i + 1) == "week")) {
      const std::string_view unit = word(i + 1);
      if (unit == "year") {
        set_range("this_year", FormatYmd(t.y, 1, 1), std::string(today));
      } else if (unit == "quarter") {
        set_range("this_quarter", FormatYmd(t.y, (t.m - 1) / 3 * 3 + 1, 1), std::string(today));
      } else if (unit == "month") {
        set_range("this_month", FormatYmd(t.y, t.m, 1), std::string(today));
      } else {
        set_range("last_n_days", AddDays(today, -6), std::string(today));
      }
      mark(i, 2);
    } else if ((w == "last" || w == "past" || w == "previous" || w == "prior" || w == "preceding") &&
               i + 1 < words.size()) {
      // "last 30 days", "past two weeks", "previous quarter", "last couple of months".
      std::optional<int> n = SmallNumber(word(i + 1));
      size_t unit_at = n ? i + 2 : i + 1;
      if (word(i + 1) == "couple" && word(i + 2) == "of") {
        n = 2;
        unit_at = i + 3;
      } else if (n && word(unit_at) == "of") {  // "last few of ..." is not a period
        continue;
      }
      std::string unit = Singularize(word(unit_at));
      if (!n) n = 1;
      if (*n <= 0 || *n > 3650) continue;
      if (unit == "fortnight") {
        unit = "day";
        *n *= 14;
      } else if (unit == "quarter") {
        unit = "month";
        *n *= 3;
      } else if (unit == "decade") {
        unit = "year";
        *n *= 10;
      } else if (unit == "hour" || unit == "hr") {
        unit = "day";
        *n = (*n + 23) / 24;
      }
      if (unit == "day") {
        set_range("last_n_days", AddDays(today, -*n), std::string(today));
      } else if (unit == "week") {
        set_range("last_n_days", AddDays(today, -7 * *n), std::string(today));
      } else if (unit == "month") {
        set_range("last_n_days", MonthsBefore(t, *n), std::string(today));
      } else if (unit == "year") {
        set_range("last_n_days", MonthsBefore(t, 12 * *n), std::string(today));
      } else {
        continue;
      }
      mark(i, unit_at - i + 1);
    } else if (w == "since" && i + 1 < words.size()) {
      if (const std::optional<int> y = Year(word(i + 1))) {
        set_range("since", FormatYmd(*y, 1, 1), std::string(today));
        mark(i, 2);
      } else if (const std::optional<int> m = MonthNumber(word(i + 1))) {
        const std::optional<int> y2 = Year(word(i + 2));
        const int y = y2 ? *y2 : (*m <= t.m ? t.y : t.y - 1);
        set_range("since", FormatYmd(y, *m, 1), std::string(today));
        mark(i, y2 ? 3 : 2);
      } else if (IsIsoDate(word(i + 1))) {
        set_range("since", std::string(word(i + 1)), std::string(today));
        mark(i, 2);
      }
    } else if ((w == "in" || w == "during") && i + 1 < words.size()) {
      if (const std::optional<int> y = Year(word(i + 1))) {
        set_range("explicit", FormatYmd(*y, 1, 1), FormatYmd(*y, 12, 31));
        mark(i, 2);
      } else if (const std::optional<int> m = MonthNumber(word(i + 1))) {
        if (const std::optional<int> y2 = Year(word(i + 2))) {
          set_range("explicit", FormatYmd(*y2, *m, 1), FormatYmd(*y2, *m, DaysInMonth(*y2, *m)));
          mark(i, 3);
        }
      }
    } else if (IsIsoDate(w)) {
      iso_dates.emplace_back(w);
      mark(i, 1);
    } else if (w == "yesterday") {
      const std::string y = AddDays(today, -1);
      set_range("explicit", y, y);
      mark(i, 1);
    } else if (w == "today") {
      set_range("explicit", std::string(today), std::string(today));
      mark(i, 1);
    }
  }
  if (!have_range && !iso_dates.empty()) {
    std::sort(iso_dates.begin(), iso_dates.end());
    set_range("explicit", iso_dates.front(), iso_dates.back());
  }
  if (!have_range && *latest_cue) time->relative = latest_is_current ? "current" : "latest";
}

}  // namespace attest::plan_internal
