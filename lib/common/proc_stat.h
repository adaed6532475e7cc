#pragma once

namespace sl {

// One read of /proc/PID/stat, with plain system calls only: the crash handlers and the death
// watcher (a child forked from a process with threads) use it. Fields are numbered as in
// proc(5). The command name (field 2) may hold spaces and parentheses, so the fields after it
// are counted from its last ')'.
class ProcStat {
 public:
  explicit ProcStat(long pid);
  bool ok() const { return fields_ != nullptr; }
  // Field 3 ('R', 'S', 'Z', ...), or 0 when !ok().
  char state() const { return fields_ ? fields_[0] : 0; }
  // The unsigned decimal field `field` (4 or more), or 0 when it cannot be read.
  unsigned long long number(int field) const;

 private:
  char buf_[1024];
  const char* fields_ = nullptr;  // field 3 in buf_
};

}  // namespace sl
