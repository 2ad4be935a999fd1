// Red-team driver: two runs of the real hosted-bot sandbox (tarock::bothost::Sandbox),
// each with the same version folder bound read-only at /bot as tarock-bothost binds it,
// run at once. The first ("sender") encodes a secret byte; the second ("receiver")
// decodes it with no shared counter, only through a kernel facility on a file both see.
//   sandbox_channel BOTDIR MODE    (MODE: flock | inotify)
#include <cstdio>
#include <string>
#include <thread>
#include "arena/bothost/sandbox/sandbox.h"
using tarock::bothost::Sandbox;
using tarock::bothost::SandboxSpec;
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  auto sandbox = Sandbox::Create();
  if (!sandbox.ok()) { std::fprintf(stderr, "%s\n", std::string(sandbox.status().message()).c_str()); return 3; }
  std::string mode = argv[2];
  auto spec = [&](const char* role) {
    SandboxSpec s;
    s.argv = {"/usr/bin/python3", "/bot/chan.py", role, mode};
    s.ro_binds = {{argv[1], "/bot"}};
    return s;
  };
  std::string out_send, out_recv;
  std::thread sender([&] { (void)(*sandbox)->Run(spec("send"), absl::Seconds(60), &out_send); });
  auto r = (*sandbox)->Run(spec("recv"), absl::Seconds(60), &out_recv);
  sender.join();
  std::printf("sender: %sreceiver: %s", out_send.c_str(), out_recv.c_str());
  return r.ok() ? 0 : 4;
}
