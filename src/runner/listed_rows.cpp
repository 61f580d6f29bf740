#include "runner/listed_rows.hpp"

#include <memory>

#include "campaign/recipients.hpp"

namespace runner {

util::Result<results::RowSource> listed_rows(const campaign::Campaign& c) {
    TRY_ASSIGN(auto opened, campaign::RecipientStream::open_unsurveyed(c));
    auto stream = std::make_shared<campaign::RecipientStream>(std::move(opened));
    auto recipient = std::make_shared<campaign::Recipient>();
    return results::RowSource([stream, recipient](results::ListedRow& out) -> util::Result<bool> {
        TRY_ASSIGN(const bool found, stream->next(*recipient));
        if (!found) {
            return false;
        }
        out.row = recipient->row;
        out.wa_id = recipient->verdict == campaign::Verdict::invalid ? std::string() : recipient->message.wa_id;
        out.user_id = recipient->user_id;
        return true;
    });
}

util::Result<results::LogState> replay_with_list(const std::string& path, const campaign::Campaign& c,
                                                 results::ReplayOptions options) {
    TRY_ASSIGN(options.rows, listed_rows(c));
    return results::replay(path, options);
}

}  // namespace runner
