#pragma once
// How a new result log comes into being: never empty, so that it always names its campaign.

#include <string>
#include <string_view>

#include "util/result.hpp"

namespace results {
class RunLock;
}  // namespace results

namespace runner {

// Creates the result log at `path` (and its folder) holding only `first_line`, the campaign
// record: written to `path`.new, synced, then renamed into place. A crash at any moment leaves
// no log or one whose first line names the campaign — resume, report and delete-contacts find
// the campaign from it, so an empty log would leave the campaign unreachable. Replaces an empty
// file at `path`; `path` must be a resolved one (RunLock::log_path), so that no symlink is
// replaced. `lock` is moved onto the new file before it takes the log's place. Fails with
// the path and the OS reason.
util::Result<void> start_log(const std::string& path, std::string_view first_line, results::RunLock& lock);

}  // namespace runner
