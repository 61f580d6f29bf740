#include "account/ledger.hpp"
#include "account/pg_ledger.hpp"
#include "account/sqlite_ledger.hpp"
#include "util/postgresql_url.hpp"

namespace account {

util::Result<std::unique_ptr<Ledger>> open_ledger(const std::string& path_or_url, const OpenOptions& options) {
    if (path_or_url.empty()) {
        return util::fail("ledger: no path given");
    }
    if (options.account.empty()) {
        return util::fail("ledger " + util::url_without_password(path_or_url) + ": no account given");
    }
    if (util::is_postgresql_url(path_or_url)) {
        auto ledger = PgLedger::open(path_or_url, options);
        if (!ledger) {
            return ledger.error();
        }
        return std::unique_ptr<Ledger>(std::move(ledger.value()));
    }
    auto ledger = SqliteLedger::open(path_or_url, options);
    if (!ledger) {
        return ledger.error();
    }
    return std::unique_ptr<Ledger>(std::move(ledger.value()));
}

}  // namespace account
