// Running an external converter (pdftotext) as a separate, sandboxed-by-limits process.
//
// The program is exec'd directly (fork + execv, no shell) in its own process group, with stdin
// from /dev/null, stdout and stderr read through pipes, every other descriptor closed, and
// resource limits set in the child before exec: CPU seconds, address space, no file writes
// (RLIMIT_FSIZE = 0) and few descriptors. The parent enforces a wall-clock timeout and a cap on
// stdout; past either, the whole process group is killed with SIGKILL. Errors are values naming
// what happened (missing program, timeout, output cap, exit status, signal, first stderr line).
// Thread-safe: every call owns its child; the child runs only async-signal-safe calls before exec.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest::ingest {

struct ChildLimits {
  uint64_t max_stdout_bytes = 50ull << 20;  // stdout past this kills the child (kResourceExhausted)
  int timeout_ms = 60'000;                  // wall clock, from fork to exit (kDeadlineExceeded)
  int cpu_seconds = 60;                     // RLIMIT_CPU
  uint64_t max_memory_bytes = 2ull << 30;   // RLIMIT_AS
  int max_open_files = 32;                  // RLIMIT_NOFILE
};

// Finds `program` ("pdftotext", or a path containing '/') like execvp would: the first
// executable regular file on $PATH. std::nullopt when there is none.
std::optional<std::string> FindProgram(const std::string& program);

// Runs `argv` (argv[0] a resolved path, see FindProgram) and returns its stdout when it exits 0.
// Otherwise an error whose message includes the first line of stderr when there is one.
Result<std::string> RunCapturingStdout(const std::vector<std::string>& argv, const ChildLimits& limits);

}  // namespace attest::ingest
