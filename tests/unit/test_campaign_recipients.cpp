#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "campaign/recipients.hpp"
#include "campaign_file_fixture.hpp"
#include "fakes.hpp"

using campaign::Recipient;
using campaign::RecipientStream;
using campaign::Verdict;

namespace {

// Row 1 and 599 repeats of its number, its repeats index sorted with `repeats` (two runs on
// disk with a buffer of 300 pairs, read back 256 pairs a run at a time).
RecipientStream open_repeats(const campaign_file_test::Folder& folder, util::ExternalSortOptions repeats) {
    std::string csv = "phone,name\n";
    for (int row = 1; row <= 600; ++row) {
        csv += "+919812345678,Asha\n";
    }
    folder.put("samples/r.csv", csv);
    auto c = folder.load(campaign_file_test::k_minimal);
    REQUIRE(c);
    campaign::DuplicateOptions options;
    options.repeats = std::move(repeats);
    auto stream = RecipientStream::open(*c, options);
    REQUIRE(stream);
    return std::move(*stream);
}

struct Read {
    long long rows = 0;
    long long repeats = 0;
    std::optional<util::Error> error;  // why the stream stopped before its end
};

Read read_all(RecipientStream& stream) {
    Read read;
    Recipient r;
    auto more = stream.next(r);
    for (; more && *more; more = stream.next(r)) {
        ++read.rows;
        read.repeats += r.verdict == Verdict::duplicate ? 1 : 0;
    }
    if (!more) {
        read.error = more.error();
    }
    return read;
}

}  // namespace

TEST_SUITE("campaign::RecipientStream") {
    TEST_CASE("when the index of repeats cannot be read back, the stream stops instead of passing repeats as firsts") {
        campaign_file_test::Folder folder;
        fakes::TempDir temp;
        // The first run's refill, after its last pair in memory (row 257) was taken, fails as a
        // failing disk would.
        auto stream =
            open_repeats(folder, {.buffer_pairs = 300, .temp_dir = temp.path.string(), .fail_reads_after_bytes = 8192});
        const Read read = read_all(stream);
        CHECK(read.rows == 257);
        CHECK(read.repeats == 256);
        REQUIRE(read.error);
        CHECK(read.error->message == folder.str("samples/r.csv") +
                                         ": stopped at row 258 (line 259): the index of repeated numbers: "
                                         "cannot read back a temporary file: Input/output error");
    }

    TEST_CASE("a row whose rendered image a check refused is invalid, with the reason; it is no first of its number") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name,img\n"
                   "+919812345678,Asha,a.gif\n"
                   "+919812345678,Asha,b.png\n"
                   "+919812345679,Vikram,a.gif\n"
                   "+919812345680,Meera,b.png\n");
        auto c = folder.load(campaign_file_test::minimal_with("type: text\n  text: \"Hi {{name}}\"",
                                                              "type: image\n  source: \"https://h.example/{{img}}\""));
        REQUIRE(c);
        campaign::MediaVerdicts media;
        media.refuse("https://h.example/a.gif", "content type image/gif; WhatsApp takes image/jpeg or image/png");
        auto stream = RecipientStream::open(*c, {}, {.media = &media});
        REQUIRE(stream);
        std::vector<std::pair<Verdict, std::string>> rows;
        Recipient r;
        while (*stream->next(r)) {
            rows.emplace_back(r.verdict, r.reason);
        }
        const std::string refused =
            "image https://h.example/a.gif: content type image/gif; WhatsApp takes image/jpeg or image/png";
        CHECK(rows ==
              std::vector<std::pair<Verdict, std::string>>{
                  {Verdict::invalid, refused}, {Verdict::ok, ""}, {Verdict::invalid, refused}, {Verdict::ok, ""}});
    }

    TEST_CASE("a stream read to the end ends with false, not an error") {
        campaign_file_test::Folder folder;
        fakes::TempDir temp;
        auto stream = open_repeats(folder, {.buffer_pairs = 300, .temp_dir = temp.path.string()});
        const Read read = read_all(stream);
        CHECK(read.rows == 600);
        CHECK(read.repeats == 599);
        CHECK_FALSE(read.error);
    }
}
