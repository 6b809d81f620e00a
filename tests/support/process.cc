#include "tests/support/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace uringload::testing {
namespace {

pid_t Spawn(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  pid_t pid = fork();
  if (pid == 0) {
    if (out_fd >= 0) dup2(out_fd, STDOUT_FILENO);
    if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Why a process did not end on its signal, for the test's log: its signal masks and each
// thread's state and the kernel function it sleeps in (from /proc, before it is killed).
void DescribeStuckProcess(pid_t pid, int signal) {
  std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream status(proc + "/status");
  std::string line;
  std::string masks;
  while (std::getline(status, line)) {
    if (line.rfind("SigPnd", 0) == 0 || line.rfind("ShdPnd", 0) == 0 ||
        line.rfind("SigBlk", 0) == 0 || line.rfind("SigCgt", 0) == 0) {
      masks += " " + line;
    }
  }
  fprintf(stderr, "process %d did not end 10 s after signal %d:%s\n", pid, signal, masks.c_str());
  DIR* tasks = opendir((proc + "/task").c_str());
  if (tasks == nullptr) return;
  while (dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::string at = proc + "/task/" + task->d_name;
    std::string comm, wchan, state;
    std::getline(std::ifstream(at + "/comm"), comm);
    std::getline(std::ifstream(at + "/wchan"), wchan);
    std::ifstream task_status(at + "/status");
    while (std::getline(task_status, line)) {
      if (line.rfind("State", 0) == 0 || line.rfind("SigBlk", 0) == 0) state += " " + line;
    }
    fprintf(stderr, "  thread %s (%s) in %s:%s\n", task->d_name, comm.c_str(), wchan.c_str(),
            state.c_str());
  }
  closedir(tasks);
}

double NowSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// Reads whatever is ready on the pipes into the strings; returns false when both hit EOF.
bool Pump(int fds[2], std::string* sinks[2], int timeout_ms) {
  pollfd pfds[2];
  int n = 0;
  int which[2];
  for (int i = 0; i < 2; ++i) {
    if (fds[i] < 0) continue;
    pfds[n] = {fds[i], POLLIN, 0};
    which[n++] = i;
  }
  if (n == 0) return false;
  poll(pfds, n, timeout_ms);
  for (int k = 0; k < n; ++k) {
    if (!(pfds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[65536];
    ssize_t got = read(fds[which[k]], buf, sizeof(buf));
    if (got <= 0) {
      close(fds[which[k]]);
      fds[which[k]] = -1;
    } else {
      sinks[which[k]]->append(buf, got);
    }
  }
  return true;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv, int timeout_seconds) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) return {};
  pid_t pid = Spawn(argv, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessResult result;
  int fds[2] = {out_pipe[0], err_pipe[0]};
  std::string* sinks[2] = {&result.out, &result.err};
  double deadline = NowSeconds() + timeout_seconds;
  bool killed = false;
  while (Pump(fds, sinks, 100)) {
    if (!killed && NowSeconds() > deadline) {
      kill(pid, SIGKILL);
      killed = true;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = ExitCode(status);
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::string& stderr_path) {
  int err_fd = stderr_path.empty()
                   ? -1
                   : open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pid_ = Spawn(argv, -1, err_fd);
  if (err_fd >= 0) close(err_fd);
}

BackgroundProcess::~BackgroundProcess() {
  if (pid_ > 0 && exit_code_ < 0) Stop(SIGTERM);
}

bool BackgroundProcess::running() {
  if (exit_code_ >= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_code_ = ExitCode(status);
    return false;
  }
  return true;
}

int BackgroundProcess::Wait(int timeout_seconds) {
  for (int i = 0; i < timeout_seconds * 10; ++i) {
    if (!running()) return exit_code_;
    usleep(100'000);
  }
  return Stop(SIGKILL);
}

int BackgroundProcess::Stop(int signal) {
  if (!running()) return exit_code_;
  kill(pid_, signal);
  for (int i = 0; i < 100; ++i) {  // 10 s, then force.
    if (!running()) return exit_code_;
    usleep(100'000);
  }
  DescribeStuckProcess(pid_, signal);
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_code_ = ExitCode(status);
  return exit_code_;
}

}  // namespace uringload::testing
