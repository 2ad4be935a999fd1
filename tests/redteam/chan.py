# Runs inside the sandbox. Sender: sends the byte 0xA5 (a "card"), one bit per 200 ms slot.
import fcntl, os, sys, time, struct
role, mode = sys.argv[1], sys.argv[2]
SECRET = 0xA5
SLOT = 0.2
T0 = (int(time.time()) // 2 + 2) * 2  # both sides start at the same even second (CLOCK_REALTIME is shared)
def wait(t):
    d = t - time.time()
    if d > 0: time.sleep(d)
if mode == 'flock':
    f = open('/bot/chan.py', 'rb')
    if role == 'send':
        for i in range(8):
            wait(T0 + i * SLOT)
            if SECRET >> (7 - i) & 1: fcntl.flock(f, fcntl.LOCK_EX)
            wait(T0 + (i + 0.9) * SLOT); fcntl.flock(f, fcntl.LOCK_UN)
        print('sent 0x%02x' % SECRET)
    else:
        v = 0
        for i in range(8):
            wait(T0 + (i + 0.5) * SLOT)
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB); fcntl.flock(f, fcntl.LOCK_UN); b = 0
            except BlockingIOError:
                b = 1
            v = v << 1 | b
        print('received 0x%02x' % v)
else:  # inotify on a file of /bot: IN_OPEN events of the other sandbox's opens
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if role == 'send':
        for i in range(8):
            wait(T0 + (i + 0.3) * SLOT)
            if SECRET >> (7 - i) & 1: open('/bot/chan.py', 'rb').close()
        print('sent 0x%02x' % SECRET)
    else:
        fd = libc.inotify_init1(os.O_NONBLOCK)
        if fd < 0: print('inotify_init1 refused errno', ctypes.get_errno()); sys.exit(0)
        libc.inotify_add_watch(fd, b'/bot/chan.py', 0x20)  # IN_OPEN
        v = 0
        for i in range(8):
            wait(T0 + (i + 1) * SLOT)
            try:
                os.read(fd, 4096); b = 1
            except BlockingIOError:
                b = 0
            v = v << 1 | b
        print('received 0x%02x' % v)
