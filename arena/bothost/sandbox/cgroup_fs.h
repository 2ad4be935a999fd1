// The cgroup file system as the sandbox uses it: read, write, make and remove
// a cgroup's folders and files. The real one is the kernel's (the files under
// /sys/fs/cgroup, and /proc/self/cgroup); a test passes another (an
// in-memory tree with cgroup v2's rules) through SandboxOptions::cgroup_fs to
// check the v2 paths on a machine whose kernel mounts v1 (sandbox_test's
// SandboxFakeV2Test). LevelDB's Env pattern.
//
// Thread-safety: the real one is stateless and safe from any thread; an
// implementation used by a Sandbox must be safe to call from its threads.

#ifndef TAROCK_ARENA_BOTHOST_SANDBOX_CGROUP_FS_H_
#define TAROCK_ARENA_BOTHOST_SANDBOX_CGROUP_FS_H_

#include <string>
#include <vector>

namespace tarock::bothost {

class CgroupFs {
 public:
  virtual ~CgroupFs() = default;
  // The whole text of a file; "" when it cannot be read.
  virtual std::string Read(const std::string& path) const = 0;
  // Writes `text` in one write(2) to the existing file `path`: 0, or the
  // errno of the open or the write (EBUSY, EINVAL, ENOENT, ESRCH, ...).
  virtual int Write(const std::string& path, const std::string& text) = 0;
  // Makes the folder `path` (a cgroup): 0 or the errno (EEXIST, ...).
  virtual int Mkdir(const std::string& path) = 0;
  // Removes the folder `path` (an empty cgroup): 0 or the errno (EBUSY, ...).
  virtual int Rmdir(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) const = 0;
  // The names of the folders in `path` (its child cgroups); none when it
  // cannot be read.
  virtual std::vector<std::string> ListDirs(const std::string& path) const = 0;

  // The kernel's: a process-wide instance.
  static CgroupFs& Real();
};

}  // namespace tarock::bothost

#endif  // TAROCK_ARENA_BOTHOST_SANDBOX_CGROUP_FS_H_
