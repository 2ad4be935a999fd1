#include "referee/variants/slovenian/slovenian.h"

#include <gtest/gtest.h>

namespace tarock::slovenian {
namespace {
TEST(SlovenianPlaceholder, Builds) { SUCCEED(); }
}  // namespace
}  // namespace tarock::slovenian
