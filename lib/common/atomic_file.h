#pragma once
#include <string>

namespace sl {

// Writes `contents` to `path` atomically: temp file in the same directory, fsync, rename.
// On any failure (e.g. disk full) the previous file at `path` is untouched and an
// std::runtime_error naming the path is thrown.
void write_file_atomic(const std::string& path, const std::string& contents);

// Appends one line (a '\n' is added) and flushes it to the OS; used for log.jsonl files.
// When the write fails part-way (e.g. disk full), the file is cut back to its previous end,
// so it still ends at its last complete line, and std::runtime_error names the path.
void append_line(const std::string& path, const std::string& line);

// Reads a whole file; throws InputError(path, ...) when it cannot be read.
std::string read_file(const std::string& path);

// mkdir -p; throws InputError when the directory cannot be created or is not writable.
void make_dirs(const std::string& path);

}  // namespace sl
