# Shared by the hosted-bot benchmarks (hosted_bench.sh, hosted_neighbour_bench.sh):
# source it after tests/testlib.sh's setup_scratch; it uses $src, $build and $tmp.

# cpp_bot_sources_and_dial_copy KIND: the C++ bot as an upload in $tmp/cpp-src
# (KIND heuristic: the repository's heuristic bot, its header in its folder;
# KIND template: the C++ template), the SDK installed in $tmp/sdk, and the
# dialed-in copy built from the same files with the host's flags (Release, the
# upload's root on the include path) as $tmp/cpp/my_bot. Fails (returns 1,
# saying so) when it cannot build.
cpp_bot_sources_and_dial_copy() {
  cmake --install "$build" --prefix "$tmp/sdk" >/dev/null 2>&1
  mkdir -p "$tmp/cpp-src" "$tmp/cpp-proj"
  if [ "$1" = heuristic ]; then
    mkdir -p "$tmp/cpp-src/bots/heuristic"
    cp "$src/bots/heuristic/heuristic_bot.cc" "$src/bots/heuristic/heuristic_main.cc" "$tmp/cpp-src/"
    cp "$src/bots/heuristic/heuristic_bot.h" "$tmp/cpp-src/bots/heuristic/"
  else
    cp "$src/sdk/templates/cpp/my_bot.cc" "$tmp/cpp-src/"
  fi
  cat >"$tmp/cpp-proj/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(dial_bot LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(TarockSDK REQUIRED)
file(GLOB SOURCES $tmp/cpp-src/*.cc)
add_executable(my_bot \${SOURCES})
target_include_directories(my_bot PRIVATE $tmp/cpp-src)
target_link_libraries(my_bot PRIVATE tarock::sdk)
CMAKE
  if ! cmake -S "$tmp/cpp-proj" -B "$tmp/cpp" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_PREFIX_PATH="$tmp/sdk" >/dev/null || ! cmake --build "$tmp/cpp" >/dev/null; then
    echo "cannot build the C++ bot"
    return 1
  fi
}
