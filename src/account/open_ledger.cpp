#include <string_view>

#include "account/ledger.hpp"
#include "account/sqlite_ledger.hpp"

namespace account {

util::Result<std::unique_ptr<Ledger>> open_ledger(const std::string& path_or_url, const OpenOptions& options) {
    const std::string_view text = path_or_url;
    if (text.starts_with("postgresql://") || text.starts_with("postgres://")) {
        return util::fail("ledger " + std::string(text.substr(0, text.find("://") + 3)) +
                          "…: a PostgreSQL ledger is not built into this wacamp yet; give a file path");
    }
    if (text.empty()) {
        return util::fail("ledger: no path given");
    }
    if (options.account.empty()) {
        return util::fail("ledger " + path_or_url + ": no account given");
    }
    auto ledger = SqliteLedger::open(path_or_url, options);
    if (!ledger) {
        return ledger.error();
    }
    return std::unique_ptr<Ledger>(std::move(ledger.value()));
}

}  // namespace account
