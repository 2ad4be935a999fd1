// Uploads of hosted bots: what is accepted and how, and each refusal's line.

#include "arena/bothost/package.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tarock::bothost {
namespace {

// A zip in memory of (name, content) entries; `link` makes the entry a symlink.
std::string Zip(const std::vector<std::pair<std::string, std::string>>& files,
                const std::string& link = "") {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_source_keep(src);
  zip_t* za = zip_open_from_source(src, ZIP_TRUNCATE, &error);
  for (const auto& [name, content] : files) {
    zip_source_t* s = zip_source_buffer(za, content.data(), content.size(), 0);
    zip_int64_t i = zip_file_add(za, name.c_str(), s, ZIP_FL_OVERWRITE);
    if (name == link) zip_file_set_external_attributes(za, i, 0, ZIP_OPSYS_UNIX, 0120777u << 16);
  }
  zip_close(za);
  zip_source_open(src);
  zip_source_seek(src, 0, SEEK_END);
  const zip_int64_t size = zip_source_tell(src);
  zip_source_seek(src, 0, SEEK_SET);
  std::string out(size, '\0');
  zip_source_read(src, out.data(), size);
  zip_source_close(src);
  zip_source_free(src);
  return out;
}

TEST(Package, SingleFilesByExtension) {
  absl::StatusOr<Package> py = ParsePackage("my_bot.py", "def decide(s):\n  return s.legal[0]\n");
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_EQ(py->kind, "python");
  EXPECT_EQ(py->entry, "my_bot.py");
  EXPECT_EQ(py->sha256.size(), 64u);
  absl::StatusOr<Package> awk = ParsePackage("bot.awk", "{ print \"pass\" }\n");
  ASSERT_TRUE(awk.ok());
  EXPECT_EQ(awk->kind, "stdio");
  EXPECT_EQ(awk->interpreter, "awk");
  EXPECT_EQ(PackageCommand(*awk, "/bot"),
            (std::vector<std::string>{"/usr/bin/awk", "-W", "interactive", "-f", "/bot/bot.awk"}));
  absl::StatusOr<Package> cc = ParsePackage("bot.cc", "int main() {}\n");
  ASSERT_TRUE(cc.ok());
  EXPECT_EQ(cc->kind, "cpp");
  absl::StatusOr<Package> sh = ParsePackage("run", "#!/bin/sh\necho pass\n");
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ(sh->interpreter, "sh");
}

TEST(Package, ZipWithManifestOrConvention) {
  absl::StatusOr<Package> p = ParsePackage(
      "b.zip", Zip({{"tarock.json", R"({"kind": "python", "entry": "pkg/main.py"})"},
                    {"pkg/main.py", "import helper\n"},
                    {"pkg/helper.py", "x = 1\n"}}));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->entry, "pkg/main.py");
  EXPECT_EQ(p->files.size(), 3u);
  absl::StatusOr<Package> conv = ParsePackage("b.zip", Zip({{"bot.py", "x = 1\n"}, {"util.py", ""}}));
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ(conv->kind, "python");
  EXPECT_EQ(conv->entry, "bot.py");
}

void ExpectRefused(const absl::StatusOr<Package>& p, const std::string& fragment) {
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find(fragment), absl::string_view::npos) << p.status();
  EXPECT_EQ(p.status().message().find('\n'), absl::string_view::npos) << "not one line";
}

TEST(Package, Refusals) {
  ExpectRefused(ParsePackage("a.py", ""), "empty");
  PackageLimits small;
  small.max_upload_bytes = 10;
  ExpectRefused(ParsePackage("a.py", std::string(11, '#'), "", "", small), "more than the limit");
  ExpectRefused(ParsePackage("a.py", "x = '\xff'\n"), "not UTF-8");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"../evil.py", "x"}})), "'..'");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"/etc/x.py", "x"}})), "absolute");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"l.py", "/etc/shadow"}}, "l.py")), "link");
  ExpectRefused(ParsePackage("a.zip", Zip({{"helper.py", "x"}})), "no entry point");
  ExpectRefused(ParsePackage("a.zip", Zip({{"tarock.json", "\xff"}, {"bot.py", "x"}})), "not UTF-8");
  ExpectRefused(ParsePackage("a.zip", "PK\x03\x04garbage"), "not a valid zip");
  ExpectRefused(ParsePackage("bot.rb", "puts 1\n"), "interpreter");
  // ELF headers: aarch64, 32-bit, and dynamically linked x86-64.
  std::string elf(128, '\0');
  elf.replace(0, 4, "\x7f" "ELF");
  elf[4] = 2;  // 64-bit
  elf[5] = 1;
  elf[16] = 2;   // ET_EXEC
  elf[18] = static_cast<char>(183);  // EM_AARCH64
  ExpectRefused(ParsePackage("bot", elf), "another architecture");
  std::string elf32 = elf;
  elf32[4] = 1;
  ExpectRefused(ParsePackage("bot", elf32), "32-bit");
}


// A learned bot ships its weights (a binary .npz) beside its Python sources
// (bots/learned): the package keeps them byte for byte under the default limits.
TEST(Package, LearnedBotWithBinaryWeights) {
  auto read = [](const std::string& path) {
    std::ifstream in(std::string(TAROCK_SOURCE_DIR) + "/" + path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string weights = read("bots/learned/slovenian-4p.npz");
  ASSERT_GT(weights.size(), 100000u);
  absl::StatusOr<Package> p = ParsePackage(
      "learned.zip", Zip({{"tarock.json", R"({"kind": "python", "entry": "learned_bot.py"})"},
                          {"learned_bot.py", read("bots/learned/learned_bot.py")},
                          {"model.py", read("bots/learned/model.py")},
                          {"slovenian-4p.npz", weights}}));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->kind, "python");
  EXPECT_EQ(p->entry, "learned_bot.py");
  EXPECT_EQ(p->files.at("slovenian-4p.npz"), weights);
}

// Zips as an attacker would make them (issue 44): each refused with one line
// at upload, before a host lays anything out.
TEST(Package, HostileZipsAreRefused) {
  const std::string cc = "int main() { return 0; }\n";
  // A plain file named .build beside C++ sources: the host builds there (it
  // once threw in create_directories and aborted the host).
  ExpectRefused(ParsePackage("a.zip", Zip({{"my_bot.cc", cc}, {".build", "x"}})), ".build");
  ExpectRefused(ParsePackage("a.zip", Zip({{"my_bot.cc", cc}, {".build/bot", "x"}})), ".build");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {".build", "x"}})), ".build");
  // A file where a folder is expected, and the other way round.
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"lib", "x"}, {"lib/m.py", "y"}})),
                "as a file and as a folder");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"bot.py/m.py", "y"}})),
                "as a file and as a folder");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"./m.py", "y"}})), "'.' part");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"a//m.py", "y"}})), "empty or '.'");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"a/../../m.py", "y"}})), "'..'");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"m\nprint.py", "y"}})),
                "control characters");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"C:\\x.py", "y"}})), "absolute");
  // Deep nesting and long names.
  std::string deep;
  for (int i = 0; i < 20; ++i) deep += "d/";
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {deep + "m.py", "y"}})), "deep");
  ExpectRefused(ParsePackage("a.zip", Zip({{"bot.py", "x"}, {std::string(240, 'n') + ".py", "y"}})),
                "longer than 200");
  // Many files.
  std::vector<std::pair<std::string, std::string>> many = {{"bot.py", "x"}};
  for (int i = 0; i < 300; ++i) many.push_back({"f" + std::to_string(i) + ".txt", "x"});
  ExpectRefused(ParsePackage("a.zip", Zip(many)), "more than 256 files");
  // A zip bomb: 65 MiB of zeros (past the default 64 MiB unpacked) in a few
  // hundred KiB.
  const int64_t unpacked = PackageLimits().max_unpacked_bytes;
  const std::string bomb =
      Zip({{"bot.py", "x"}, {"zeros.txt", std::string(unpacked + (1 << 20), '\0')}});
  EXPECT_LT(bomb.size(), size_t{960} << 10);
  ExpectRefused(ParsePackage("a.zip", bomb), "unpacks to more than");
  // What is accepted still unpacks: folders, nested a little.
  absl::StatusOr<Package> fine =
      ParsePackage("a.zip", Zip({{"bot.py", "x"}, {"lib/sub/m.py", "y"}, {"build/x.txt", "z"}}));
  ASSERT_TRUE(fine.ok()) << fine.status();
}

// A package the host is handed (as an arena of an older release may have
// accepted it) never makes UnpackPackage throw, write through a link or
// outside its folder: each bad path is an error for that version alone.
TEST(Package, UnpackRefusesWhatCannotBeLaidOut) {
  char tmpl[] = "/tmp/package_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  Package p;
  p.kind = "cpp";
  p.files = {{"my_bot.cc", "int main() {}\n"}, {".build", "x"}};
  absl::Status s = UnpackPackage(p, root + "/v1");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(".build"), absl::string_view::npos) << s;
  p.files = {{"a", "x"}, {"a/b", "y"}};
  s = UnpackPackage(p, root + "/v2");
  EXPECT_FALSE(s.ok()) << "a file and a folder of one name";
  p.files = {{"../escape.txt", "x"}};
  EXPECT_FALSE(UnpackPackage(p, root + "/v3").ok());
  // A link already where a file goes: not followed.
  ASSERT_EQ(mkdir((root + "/v4").c_str(), 0755), 0);
  ASSERT_EQ(symlink((root + "/outside.txt").c_str(), (root + "/v4/bot.py").c_str()), 0);
  p.kind = "python";
  p.files = {{"bot.py", "x"}};
  EXPECT_FALSE(UnpackPackage(p, root + "/v4").ok());
  struct stat st;
  EXPECT_NE(lstat((root + "/outside.txt").c_str(), &st), 0) << "written through a link";
  p.files = {{"bot.py", "x"}, {"lib/m.py", "y"}};
  EXPECT_TRUE(UnpackPackage(p, root + "/v5").ok());
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace tarock::bothost
