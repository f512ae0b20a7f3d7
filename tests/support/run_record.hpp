// The listener beside doctest's reporters that both test mains (support/doctest_main.cpp, mpi/main.cpp)
// use to fail a run whose filters select no test case: it counts the test cases that start and notes
// reporting runs. Included by one main per executable, since it registers the listener.
#pragma once

#include <doctest/doctest.h>

namespace {

struct RunRecord {
  unsigned started = 0;  // test cases entered
  bool query = false;    // a reporting run: nothing was meant to be executed
};
RunRecord record;

// Sees every run beside the reporters: counts the test cases that start and notes reporting runs.
struct StrictRunListener : doctest::IReporter {
  explicit StrictRunListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override { record.query = true; }
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++record.started; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("clsort_strict_run", 1, StrictRunListener);
