/* Intermediate files and subprocesses (memopt-opt, mlir-runner).
 *
 * Subprocesses start with posix_spawn and write to files rather than pipes:
 * no deadlock on large outputs, and with --keep the files stay for
 * inspection. */
/* nftw is an X/Open (XSI) function. */
#define _XOPEN_SOURCE 700

#include "Harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

bool harnessWorkDirCreate(const char *keepDir, HarnessWorkDir *dir, MemoptStringBuffer *error) {
  memset(dir, 0, sizeof *dir);
  if (keepDir) {
    if (mkdir(keepDir, 0777) != 0 && errno != EEXIST) {
      memoptStringBufferAppendFormat(error, "cannot create '%s': %s", keepDir, strerror(errno));
      return false;
    }
    struct stat status;
    if (stat(keepDir, &status) != 0 || !S_ISDIR(status.st_mode)) {
      memoptStringBufferAppendFormat(error, "'%s' is not a directory", keepDir);
      return false;
    }
    dir->path = memoptStrndup(keepDir, strlen(keepDir));
    dir->keep = true;
    return true;
  }
  const char *base = getenv("TMPDIR");
  MemoptStringBuffer path = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&path, "%s/memopt-run-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(path.data)) {
    memoptStringBufferAppendFormat(error, "cannot create a temporary directory from '%s': %s",
                                   path.data, strerror(errno));
    memoptStringBufferDestroy(&path);
    return false;
  }
  dir->path = memoptStringBufferRelease(&path);
  return true;
}

char *harnessWorkDirFile(const HarnessWorkDir *dir, const char *name) {
  MemoptStringBuffer path = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&path, "%s/%s", dir->path, name);
  return memoptStringBufferRelease(&path);
}

static int removeEntry(const char *path, const struct stat *status, int type, struct FTW *where) {
  return remove(path) == 0 ? 0 : -1;
}

void harnessWorkDirDestroy(HarnessWorkDir *dir) {
  /* The whole tree, not only the files memopt-run names: mlir-runner adds a
   * .debug/jit/... directory of perf jitdump files there. Only a directory
   * mkdtemp made for this run is ever removed. Symbolic links are removed,
   * never followed. */
  if (!dir->keep && dir->path)
    nftw(dir->path, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  free(dir->path);
  memset(dir, 0, sizeof *dir);
}

char *harnessExecutableDir(MemoptStringBuffer *error) {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) {
    memoptStringBufferAppendFormat(error, "cannot locate the memopt-run executable: %s",
                                   strerror(errno));
    return NULL;
  }
  path[length] = '\0';
  char *slash = strrchr(path, '/');
  return memoptStrndup(path, slash ? (size_t)(slash - path) : 0);
}

/* Returns a copy of the environment with `extra` ("NAME=value" entries, NULL
 * terminated) added, replacing variables of the same name. The array is
 * heap-allocated; its strings are borrowed. */
static char **environmentWith(char *const extra[]) {
  size_t count = 0, extraCount = 0;
  while (environ[count])
    ++count;
  while (extra && extra[extraCount])
    ++extraCount;
  char **result = memoptAllocateZeroed(count + extraCount + 1, sizeof *result);
  size_t used = 0;
  for (size_t i = 0; i < count; ++i) {
    bool replaced = false;
    for (size_t j = 0; j < extraCount && !replaced; ++j) {
      size_t nameLength = (size_t)(strchr(extra[j], '=') - extra[j]) + 1;
      replaced = strncmp(environ[i], extra[j], nameLength) == 0;
    }
    if (!replaced)
      result[used++] = environ[i];
  }
  for (size_t j = 0; j < extraCount; ++j)
    result[used++] = extra[j];
  return result;
}

static volatile sig_atomic_t stopSignal;

static void recordStop(int signal) { stopSignal = signal; }

void harnessStopOnSignals(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = recordStop;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof signals / sizeof *signals; ++i)
    sigaction(signals[i], &action, NULL);
}

int harnessStopSignal(void) { return stopSignal; }

void harnessRaiseStopSignal(void) {
  int signal = stopSignal;
  if (!signal)
    return;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, NULL);
  raise(signal);
}

static double monotonicSeconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Waits for `child`, killing it when `timeoutSeconds` pass (0: never) or a
 * stop signal arrives. Returns the wait status, or -1 with errno. */
static int waitWithTimeout(pid_t child, long long timeoutSeconds, bool *timedOut) {
  double deadline = monotonicSeconds() + (double)timeoutSeconds;
  /* Polling keeps this free of SIGCHLD handlers; the sleep grows to 20 ms so
   * that short runs end promptly and long ones cost no CPU. */
  long sleepNanoseconds = 100000;
  for (;;) {
    int waitStatus = 0;
    pid_t done = waitpid(child, &waitStatus, WNOHANG);
    if (done == child)
      return waitStatus;
    if (done < 0 && errno != EINTR)
      return -1;
    bool expired = timeoutSeconds > 0 && monotonicSeconds() >= deadline;
    if (expired || stopSignal) {
      *timedOut = expired;
      /* The whole group: mpirun.mpich's ranks go with it. */
      kill(-child, SIGKILL);
      while (waitpid(child, &waitStatus, 0) < 0 && errno == EINTR)
        ;
      return waitStatus;
    }
    struct timespec pause = {0, sleepNanoseconds};
    nanosleep(&pause, NULL);
    if (sleepNanoseconds < 20000000)
      sleepNanoseconds *= 2;
  }
}

bool harnessRunProcess(char *const argv[], char *const extraEnvironment[], const char *stdoutPath,
                       const char *stderrPath, long long timeoutSeconds, HarnessExit *exit,
                       MemoptStringBuffer *error) {
  if (stopSignal) {
    memoptStringBufferAppendFormat(error, "stopped by signal %d before running '%s'",
                                   (int)stopSignal, argv[0]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdoutPath,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0666);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrPath,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0666);
  /* In a process group of its own, so that a stop kills what it started too
   * (the ranks mpirun.mpich starts). */
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t child;
  char **environment = environmentWith(extraEnvironment);
  int status = posix_spawn(&child, argv[0], &actions, &attributes, argv, environment);
  free(environment);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (status != 0) {
    memoptStringBufferAppendFormat(error, "cannot run '%s': %s", argv[0], strerror(status));
    return false;
  }
  bool timedOut = false;
  int waitStatus = waitWithTimeout(child, timeoutSeconds, &timedOut);
  if (waitStatus < 0) {
    memoptStringBufferAppendFormat(error, "cannot wait for '%s': %s", argv[0], strerror(errno));
    return false;
  }
  if (timedOut) {
    memoptStringBufferAppendFormat(error, "'%s' took longer than --timeout=%lld seconds", argv[0],
                                   timeoutSeconds);
    return false;
  }
  if (stopSignal) {
    memoptStringBufferAppendFormat(error, "stopped by signal %d while running '%s'",
                                   (int)stopSignal, argv[0]);
    return false;
  }
  exit->exited = WIFEXITED(waitStatus);
  exit->code = exit->exited ? WEXITSTATUS(waitStatus) : WTERMSIG(waitStatus);
  return true;
}

void harnessExitDescribe(HarnessExit exit, MemoptStringBuffer *out) {
  if (exit.exited)
    memoptStringBufferAppendFormat(out, "exit code %d", exit.code);
  else
    memoptStringBufferAppendFormat(out, "signal %d (%s)", exit.code, strsignal(exit.code));
}
