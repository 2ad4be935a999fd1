// The --help of a Google Benchmark program: its name and what it measures, then
// the library's own usage (which lists only the --benchmark_* flags and exits 0).
// tests/cli_docs_test.py checks that every program's --help starts with its name
// and says what it does.
//
// Thread-safety: call from main() before benchmark::Initialize, on one thread.

#ifndef TAROCK_REFEREE_BENCH_BENCHMARK_USAGE_H_
#define TAROCK_REFEREE_BENCH_BENCHMARK_USAGE_H_

#include <cstdio>
#include <cstring>

namespace tarock {

// When argv asks for help (--help, -h, --helpfull), prints "NAME: USAGE" on
// stdout, so that benchmark::Initialize's usage follows it; otherwise nothing.
inline void PrintBenchmarkPurposeOnHelp(int argc, char** argv, const char* name, const char* usage) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        std::strcmp(argv[i], "--helpfull") == 0) {
      std::printf("%s: %s\n\n", name, usage);
      std::fflush(stdout);
      return;
    }
  }
}

}  // namespace tarock

// main() of a Google Benchmark program whose --help says what it measures.
#define TAROCK_BENCHMARK_MAIN(name, usage)                           \
  int main(int argc, char** argv) {                                  \
    ::tarock::PrintBenchmarkPurposeOnHelp(argc, argv, name, usage);  \
    ::benchmark::Initialize(&argc, argv);                            \
    if (::benchmark::ReportUnrecognizedArguments(argc, argv)) return 1; \
    ::benchmark::RunSpecifiedBenchmarks();                           \
    ::benchmark::Shutdown();                                         \
    return 0;                                                        \
  }

#endif  // TAROCK_REFEREE_BENCH_BENCHMARK_USAGE_H_
