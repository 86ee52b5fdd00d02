// Files the tool writes whole (images, reports, bench JSON) appear under their name only when complete: they
// are written to a hidden temporary name beside the final one and renamed into place.
#pragma once
#include <string>

#include "core/status.hpp"

namespace gpublur {

// "dir/.name.tmp-<pid>-<8 hex>.ext": hidden, beside `output`, keeping its extension (adapters pick the format by
// it). The random part keeps apart runs whose process ids match (containers sharing a volume); the name's stem is
// cut where the whole would pass NAME_MAX (255 bytes), so a legal output name never fails for its temporary's.
std::string temp_path_for(const std::string& output);

// Writes `text` as the whole of `path`: a new or regular file through a temporary and a rename; a link's target
// the same way (the link stays); a path that is not a regular file (a device, a FIFO, /dev/stdout, /proc/self/fd/N)
// directly, appending where it is a file behind an open descriptor. `what` begins the errors ("--report x.json").
Status write_text_file(const std::string& path, const std::string& text, const std::string& what);

// Removes the temporaries write_text_file has open or is creating (a report's, bench's JSON): the interrupt thread
// calls it before the process exits, as it removes images' (a second signal stops its wait for a write; a report merge
// waited for none). Its lock is never held across a call that may block: only an unlink itself can.
void remove_text_temporaries();

// Says that the process is being interrupted (the interrupt thread, at the signal): write_text_file then writes a FIFO
// only where a reader has it open, failing at once where none has ("no reader"), one waiting for a reader included,
// instead of waiting for one that may never come. Before that it waits, as any writer of a FIFO does (a reader may
// come later).
void note_interrupted();

// Says that the process started with stdout closed (main holds descriptor 1 on /dev/null): write_text_file then
// refuses a path that reaches it (/dev/stdout, /dev/fd/1, /proc/self/fd/1), whose text would be lost.
void note_stdout_closed();

// Whether text written to path lands on this process's stdout: "-", /dev/stdout and its other names, or the file,
// pipe or terminal stdout is (bench's table then goes to stderr, so that stdout holds only the JSON). False where
// stdout came closed.
bool text_target_is_stdout(const std::string& path);

// What `write_text_file` would meet, checked before the work that produces the text, so a report is not refused
// after the whole run ("" or "-": nothing to check): not a folder; its folder exists and may be written in, or the
// existing non-regular file may be written. `option` begins the error ("--report").
Status check_text_file_target(const std::string& option, const std::string& path);

}  // namespace gpublur
