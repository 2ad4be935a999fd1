#include "arena/bothost/package.h"

#include <elf.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace tarock::bothost {
namespace {

absl::Status Refuse(const std::string& why) { return absl::InvalidArgumentError(why); }

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(digest), len));
}

std::string Extension(const std::string& path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return absl::AsciiStrToLower(path.substr(dot));
}

bool IsElf(const std::string& c) { return c.size() >= 4 && c.compare(0, 4, "\x7f" "ELF") == 0; }

// A static x86-64 Linux executable, or why not.
absl::Status CheckExecutable(const std::string& c) {
  if (c.size() < sizeof(Elf64_Ehdr)) return Refuse("the executable is truncated");
  if (c[EI_CLASS] != ELFCLASS64)
    return Refuse("the executable is 32-bit: want a static x86-64 Linux executable");
  Elf64_Ehdr h;
  std::memcpy(&h, c.data(), sizeof h);
  if (h.e_machine != EM_X86_64)
    return Refuse(absl::StrCat("the executable is for another architecture (ELF machine ",
                               h.e_machine, "): want a static x86-64 Linux executable"));
  if (h.e_type != ET_EXEC && h.e_type != ET_DYN) return Refuse("the ELF file is not an executable");
  for (int i = 0; i < h.e_phnum; ++i) {
    const uint64_t off = h.e_phoff + uint64_t{h.e_phentsize} * i;
    if (off + sizeof(Elf64_Phdr) > c.size()) return Refuse("the executable is truncated");
    Elf64_Phdr p;
    std::memcpy(&p, c.data() + off, sizeof p);
    if (p.p_type == PT_INTERP)
      return Refuse("the executable is dynamically linked: link it statically (-static)");
  }
  return absl::OkStatus();
}

bool IsText(const std::string& path) {
  static const char* kText[] = {".py", ".awk", ".js", ".mjs", ".sh", ".cc", ".cpp", ".h",
                                ".hpp", ".json", ".txt", ".md", ".cfg", ".toml"};
  const std::string ext = Extension(path);
  for (const char* t : kText)
    if (ext == t) return true;
  return false;
}

// A relative path that stays inside the package, and that the host can lay
// out: no absolute path, no '..', '.' or empty part, no control character, at
// most 8 folders deep and 200 bytes long, and nothing under `.build` (where
// the host builds a C++ bot: an upload's `.build`, a file or a folder, once
// made the host's build throw).
absl::Status CheckPath(const std::string& path) {
  if (path.empty()) return Refuse("the zip has an entry with an empty name");
  for (unsigned char ch : path)
    if (ch < 0x20 || ch == 0x7f) return Refuse("the zip has a file name with control characters");
  if (path[0] == '/' || absl::StrContains(path, "\\"))
    return Refuse(absl::StrCat("the zip has an absolute path: ", path.substr(0, 100)));
  if (path.size() > 200) return Refuse(absl::StrCat("the zip has a path longer than 200 bytes: ",
                                                    path.substr(0, 100)));
  absl::string_view rest = path;
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);  // a folder's entry
  int depth = 0;
  for (absl::string_view part : absl::StrSplit(rest, '/')) {
    if (part == "..") return Refuse(absl::StrCat("the zip has a path with '..': ", path.substr(0, 100)));
    if (part.empty() || part == ".")
      return Refuse(absl::StrCat("the zip has a path with an empty or '.' part: ", path.substr(0, 100)));
    if (depth == 0 && part == ".build")
      return Refuse("the zip has .build, the name the host builds in: rename it");
    if (++depth > 9) return Refuse(absl::StrCat("the zip has a path more than 8 folders deep: ",
                                                path.substr(0, 100)));
  }
  return absl::OkStatus();
}

absl::Status ReadZip(const std::string& content, const PackageLimits& limits,
                     std::map<std::string, std::string>* files) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = zip_source_buffer_create(content.data(), content.size(), 0, &error);
  if (src == nullptr) return Refuse("the zip cannot be read");
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (za == nullptr) {
    zip_source_free(src);
    return Refuse(absl::StrCat("not a valid zip: ", zip_error_strerror(&error)));
  }
  struct Closer {
    zip_t* z;
    ~Closer() { zip_discard(z); }
  } closer{za};
  const zip_int64_t n = zip_get_num_entries(za, 0);
  if (n > limits.max_files) return Refuse(absl::StrCat("the zip has more than ", limits.max_files, " files"));
  int64_t total = 0;
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(za, i, 0, &st) != 0) return Refuse("the zip cannot be read");
    std::string name = st.name;
    if (absl::Status s = CheckPath(name); !s.ok()) return s;
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(za, i, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      const mode_t mode = attributes >> 16;
      if (S_ISLNK(mode)) return Refuse(absl::StrCat("the zip has a link: ", name.substr(0, 100)));
      if ((mode & S_IFMT) != 0 && !S_ISREG(mode) && !S_ISDIR(mode))
        return Refuse(absl::StrCat("the zip has a special file: ", name.substr(0, 100)));
    }
    if (!name.empty() && name.back() == '/') continue;  // a directory
    total += st.size;
    if (total > limits.max_unpacked_bytes)
      return Refuse(absl::StrCat("the zip unpacks to more than ", limits.max_unpacked_bytes, " bytes"));
    zip_file_t* f = zip_fopen_index(za, i, 0);
    if (f == nullptr) return Refuse(absl::StrCat("the zip entry ", name.substr(0, 100), " cannot be read"));
    std::string data(st.size, '\0');
    zip_int64_t got = st.size > 0 ? zip_fread(f, data.data(), st.size) : 0;
    zip_fclose(f);
    if (got != static_cast<zip_int64_t>(st.size))
      return Refuse(absl::StrCat("the zip entry ", name.substr(0, 100), " is damaged"));
    if (files->count(name)) return Refuse(absl::StrCat("the zip names ", name.substr(0, 100), " twice"));
    (*files)[name] = std::move(data);
  }
  // A name that is both a file and a folder ("a" and "a/b"): it cannot be laid out.
  for (const auto& [name, _] : *files)
    for (size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
      if (files->count(name.substr(0, slash)))
        return Refuse(absl::StrCat("the zip has ", name.substr(0, slash).substr(0, 100),
                                   " as a file and as a folder"));
  return absl::OkStatus();
}

std::string InterpreterOf(const std::string& path, const std::string& content) {
  if (absl::StartsWith(content, "#!")) {
    std::string line = content.substr(0, content.find('\n'));
    for (const char* i : {"python3", "node", "awk", "sh"})
      if (absl::StrContains(line, i)) return i;
  }
  const std::string ext = Extension(path);
  if (ext == ".py") return "python3";
  if (ext == ".js" || ext == ".mjs") return "node";
  if (ext == ".awk") return "awk";
  if (ext == ".sh") return "sh";
  return "";
}

}  // namespace

bool IsUtf8(const std::string& text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    unsigned char c = text[i];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k < len; ++k) {
      unsigned char d = text[i + k];
      if ((d >> 6) != 2) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += len;
  }
  return true;
}

absl::StatusOr<Package> ParsePackage(const std::string& filename, const std::string& content,
                                     const std::string& kind_in, const std::string& entry_in,
                                     const PackageLimits& limits) {
  if (content.empty()) return Refuse("the upload is empty");
  if (static_cast<int64_t>(content.size()) > limits.max_upload_bytes)
    return Refuse(absl::StrCat("the upload has ", content.size(), " bytes, more than the limit of ",
                               limits.max_upload_bytes));
  if (!kind_in.empty() && kind_in != "python" && kind_in != "cpp" && kind_in != "stdio")
    return Refuse(absl::StrCat("unknown kind '", kind_in.substr(0, 40), "': want python, cpp or stdio"));
  Package p;
  p.sha256 = Sha256Hex(content);
  p.size = content.size();
  std::string base = filename.substr(filename.rfind('/') + 1);
  if (base.empty()) base = "bot";
  if (!IsUtf8(base)) return Refuse("the file name is not UTF-8");
  const bool zip = Extension(base) == ".zip" || absl::StartsWith(content, "PK\x03\x04");
  std::string kind = kind_in, entry = entry_in, interpreter;
  if (zip) {
    if (absl::Status s = ReadZip(content, limits, &p.files); !s.ok()) return s;
    if (p.files.empty()) return Refuse("the zip has no files");
    auto manifest = p.files.find("tarock.json");
    if (manifest != p.files.end()) {
      if (!IsUtf8(manifest->second)) return Refuse("tarock.json is not UTF-8");
      nlohmann::json m = nlohmann::json::parse(manifest->second, nullptr, false);
      if (!m.is_object()) return Refuse("tarock.json is not a JSON object");
      if (kind.empty() && m.contains("kind") && m["kind"].is_string()) kind = m["kind"];
      if (entry.empty() && m.contains("entry") && m["entry"].is_string()) entry = m["entry"];
      if (m.contains("interpreter") && m["interpreter"].is_string()) interpreter = m["interpreter"];
      if (kind != "" && kind != "python" && kind != "cpp" && kind != "stdio")
        return Refuse("tarock.json: kind must be python, cpp or stdio");
    }
    if (entry.empty() && (kind.empty() || kind == "python"))
      for (const char* e : {"bot.py", "main.py", "my_bot.py"})
        if (p.files.count(e)) {
          entry = e;
          if (kind.empty()) kind = "python";
          break;
        }
    if (kind.empty()) {
      for (const auto& [path, _] : p.files)
        if (path.find('/') == std::string::npos &&
            (Extension(path) == ".cc" || Extension(path) == ".cpp"))
          kind = "cpp";
    }
    if (kind.empty())
      return Refuse("no entry point: name it in tarock.json ({\"kind\": ..., \"entry\": ...}) or "
                    "add bot.py, main.py or my_bot.py (Python) or .cc sources (C++)");
  } else {
    p.files[base] = content;
    if (kind.empty()) {
      const std::string ext = Extension(base);
      if (ext == ".py") kind = "python";
      else if (ext == ".cc" || ext == ".cpp") kind = "cpp";
      else kind = "stdio";
    }
    entry = base;
  }
  // Text where text is expected.
  for (const auto& [path, data] : p.files)
    if (IsText(path) && !IsUtf8(data))
      return Refuse(absl::StrCat(path.substr(0, 100), " is not UTF-8 text"));
  p.kind = kind;
  if (kind == "cpp") {
    bool any = false;
    for (const auto& [path, _] : p.files)
      any |= path.find('/') == std::string::npos &&
             (Extension(path) == ".cc" || Extension(path) == ".cpp");
    if (!any) return Refuse("no entry point: a C++ bot needs .cc or .cpp sources");
    p.entry = entry.empty() ? "" : entry;
    return p;
  }
  if (entry.empty()) return Refuse("no entry point: name it in tarock.json (\"entry\")");
  auto it = p.files.find(entry);
  if (it == p.files.end())
    return Refuse(absl::StrCat("no entry point: ", entry.substr(0, 100), " is not in the upload"));
  p.entry = entry;
  if (kind == "python") {
    if (IsElf(it->second)) return Refuse("a Python bot's entry point is an executable, not Python");
    if (!IsUtf8(it->second)) return Refuse(absl::StrCat(entry, " is not UTF-8 text"));
    return p;
  }
  // stdio
  if (IsElf(it->second)) {
    if (absl::Status s = CheckExecutable(it->second); !s.ok()) return s;
    p.interpreter = "";
    return p;
  }
  if (!IsUtf8(it->second)) return Refuse(absl::StrCat(entry, " is not UTF-8 text"));
  if (interpreter.empty()) interpreter = InterpreterOf(entry, it->second);
  if (interpreter != "python3" && interpreter != "node" && interpreter != "awk" && interpreter != "sh")
    return Refuse("a stdio bot needs an interpreter the hosts have (python3, node, awk, sh: by "
                  "extension, #! line or tarock.json) or a static x86-64 executable");
  p.interpreter = interpreter;
  return p;
}

std::vector<std::string> PackageCommand(const Package& p, const std::string& root) {
  const std::string entry = absl::StrCat(root, "/", p.entry);
  if (p.kind == "python") return {"/usr/bin/python3", "-m", "tarock_bot", "stdio", entry};
  if (p.kind == "cpp") return {absl::StrCat(root, "/.build/bot"), "--stdio"};
  if (p.interpreter == "python3") return {"/usr/bin/python3", entry};
  if (p.interpreter == "node") return {"/usr/bin/node", entry};
  if (p.interpreter == "awk") return {"/usr/bin/awk", "-W", "interactive", "-f", entry};
  if (p.interpreter == "sh") return {"/bin/sh", entry};
  return {entry};
}

absl::Status UnpackPackage(const Package& p, const std::string& dir) {
  // Every call takes an error_code: what an upload names must never throw.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  chmod(dir.c_str(), 0755);
  for (const auto& [path, data] : p.files) {
    if (absl::Status s = CheckPath(path); !s.ok()) return s;
    const fs::path target = fs::path(dir) / path;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return Refuse(absl::StrCat("cannot lay out ", path.substr(0, 100), ": ", ec.message()));
    for (fs::path d = target.parent_path(); d.string().size() > dir.size(); d = d.parent_path())
      chmod(d.c_str(), 0755);
    // A new regular file, never through a link or into a folder.
    const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      return Refuse(absl::StrCat("cannot write ", path.substr(0, 100), ": ", std::strerror(errno)));
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = write(fd, data.data() + done, data.size() - done);
      if (n <= 0) break;
      done += n;
    }
    fchmod(fd, p.kind == "stdio" && path == p.entry ? 0755 : 0644);
    close(fd);
    if (done != data.size()) return absl::UnavailableError(absl::StrCat("cannot write ", target.string()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<std::string, std::string>> PackUpload(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st)) return absl::NotFoundError(absl::StrCat("no such file or folder: ", path));
  auto read = [](const fs::path& p) -> absl::StatusOr<std::string> {
    std::ifstream in(p, std::ios::binary);
    if (!in) return absl::UnavailableError(absl::StrCat("cannot read ", p.string()));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string name = fs::path(path).filename().string();
  if (fs::is_regular_file(st)) {
    absl::StatusOr<std::string> content = read(path);
    if (!content.ok()) return content.status();
    return std::make_pair(name, *std::move(content));
  }
  if (!fs::is_directory(st)) return absl::InvalidArgumentError(absl::StrCat(path, " is neither a file nor a folder"));
  char tmp[] = "/tmp/tarock-upload.XXXXXX";
  int fd = mkstemp(tmp);
  if (fd < 0) return absl::UnavailableError("cannot make a temporary file");
  close(fd);
  int err = 0;
  zip_t* za = zip_open(tmp, ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (za == nullptr) {
    unlink(tmp);
    return absl::UnavailableError("cannot make a zip");
  }
  std::vector<std::string> contents;  // kept alive until zip_close
  contents.reserve(4096);
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path rel = fs::relative(it->path(), path);
    const std::string r = rel.generic_string();
    if (r.empty() || r[0] == '.' || r.find("/.") != std::string::npos || r.find("__pycache__") != std::string::npos) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;  // hidden files and caches stay home
    }
    if (it->is_symlink()) {
      zip_discard(za);
      unlink(tmp);
      return absl::InvalidArgumentError(absl::StrCat("the folder has a link: ", r, " (copy the file instead)"));
    }
    if (it->is_directory()) continue;
    if (!it->is_regular_file()) continue;
    if (contents.size() >= 4096) {
      zip_discard(za);
      unlink(tmp);
      return absl::InvalidArgumentError("the folder has too many files");
    }
    absl::StatusOr<std::string> content = read(it->path());
    if (!content.ok()) {
      zip_discard(za);
      unlink(tmp);
      return content.status();
    }
    contents.push_back(*std::move(content));
    zip_source_t* src = zip_source_buffer(za, contents.back().data(), contents.back().size(), 0);
    if (src == nullptr || zip_file_add(za, r.c_str(), src, ZIP_FL_ENC_UTF_8) < 0) {
      if (src) zip_source_free(src);
      zip_discard(za);
      unlink(tmp);
      return absl::UnavailableError(absl::StrCat("cannot add ", r, " to the zip"));
    }
  }
  if (zip_close(za) != 0) {
    zip_discard(za);
    unlink(tmp);
    return absl::UnavailableError("cannot write the zip");
  }
  absl::StatusOr<std::string> zipped = read(tmp);
  unlink(tmp);
  if (!zipped.ok()) return zipped.status();
  return std::make_pair(name + ".zip", *std::move(zipped));
}

}  // namespace tarock::bothost
