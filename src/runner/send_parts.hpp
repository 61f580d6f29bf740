#pragma once
// What a run of a campaign is given by its caller (send_campaign's parts): every side effect,
// from the transport and the clock to the account's ledger and pace.

#include <atomic>
#include <functional>
#include <memory>

#include "account/ledger.hpp"
#include "queue/pace.hpp"
#include "results/replay.hpp"
#include "runner/account_book.hpp"
#include "runner/send_options.hpp"
#include "runner/ui.hpp"
#include "runner/watch.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// What a run sends through, waits with, talks to, and stops on.
struct SendParts {
    service::HttpTransport& transport;
    util::Clock& clock;
    RunUi& ui;
    const std::atomic<int>& stop_requests;  // counts SIGINT/SIGTERM
    // Where images are checked (message.check_media): their hosts are not the service, whose
    // CA file they need not share. Null: `transport`.
    service::HttpTransport* media_transport = nullptr;
    // Told of each outcome and request, and of progress (metrics). Null: nobody watches.
    RunWatch* watch = nullptr;
    // Where the replay of an existing log keeps its per-row records and sorts (tests make them
    // fail); `now` and `rows` are the run's own.
    results::ReplayOptions replay{};
    // Opens the account's ledger read-write, syncing its commits as asked (--sync every: full),
    // when the prepare step reaches it: after the run lock and the replay, so that unusable
    // input never creates a ledger. Null, or returning null: no ledger (account.ledger: off).
    // The CLI passes cli::open_account_book (account::open_ledger); tests may pass a fake.
    std::function<util::Result<std::unique_ptr<AccountBook>>(account::Sync)> open_book{};
    // The account's pace shared with its other runners (account.rate_store); null: this
    // runner's own rate limiter alone. Built by the CLI, connected on first use.
    queue::Pace* pace = nullptr;
    WarmConnections warm = WarmConnections::no;
};

}  // namespace runner
