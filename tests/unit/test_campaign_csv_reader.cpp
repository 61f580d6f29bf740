#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "campaign/csv_reader.hpp"

using campaign::CsvOptions;
using campaign::CsvReader;
using campaign::CsvRecord;
using Fields = std::vector<std::string>;

namespace {

// Chunk sizes that put every chunk boundary somewhere awkward, and the real default.
const std::vector<std::size_t> k_chunks = {1, 2, 3, 5, 64 * 1024};

CsvOptions options(std::size_t chunk, char delimiter = ',') {
    CsvOptions o;
    o.chunk_size = chunk;
    o.delimiter = delimiter;
    return o;
}

std::vector<CsvRecord> read_all(CsvReader& reader) {
    std::vector<CsvRecord> rows;
    CsvRecord record;
    for (;;) {
        auto more = reader.next(record);
        REQUIRE(more);
        if (!*more) {
            break;
        }
        rows.push_back(record);
    }
    return rows;
}

// Reads `text` with every chunk size; checks they agree and returns the records.
std::vector<CsvRecord> parse(const std::string& text, char delimiter = ',') {
    std::vector<CsvRecord> first;
    for (const std::size_t chunk : k_chunks) {
        CAPTURE(chunk);
        auto reader = CsvReader::from_string(text, options(chunk, delimiter));
        REQUIRE(reader.ok());
        auto rows = read_all(*reader);
        if (chunk == k_chunks.front()) {
            first = rows;
            continue;
        }
        REQUIRE(rows.size() == first.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            CHECK(rows[i].fields == first[i].fields);
            CHECK(rows[i].line == first[i].line);
            CHECK(rows[i].problem == first[i].problem);
        }
    }
    return first;
}

// A stream that gives `text`, then fails as a failing disk would (the stream goes bad).
class FailingBuf final : public std::streambuf {
public:
    explicit FailingBuf(std::string text) : m_text(std::move(text)) {
        setg(m_text.data(), m_text.data(), m_text.data() + m_text.size());
    }

protected:
    int_type underflow() override { throw std::runtime_error("EIO"); }

private:
    std::string m_text;
};

class FailingStream final : public std::istream {
public:
    explicit FailingStream(std::string text) : std::istream(nullptr), m_buf(std::move(text)) { rdbuf(&m_buf); }

private:
    FailingBuf m_buf;
};

std::string header_error(const std::string& text) {
    auto reader = CsvReader::from_string(text, options(3), "r.csv");
    REQUIRE_FALSE(reader.ok());
    return reader.error().message;
}

}  // namespace

TEST_SUITE("campaign::CsvReader") {
    TEST_CASE("reads the header and numbers rows from 1") {
        auto reader = CsvReader::from_string("name,phone\nAsha,98123\nRavi,98124\n", options(4));
        REQUIRE(reader.ok());
        CHECK(reader->header() == Fields{"name", "phone"});
        const auto rows = read_all(*reader);
        REQUIRE(rows.size() == 2);
        CHECK(rows[0].row == 1);
        CHECK(rows[0].line == 2);
        CHECK(rows[0].fields == Fields{"Asha", "98123"});
        CHECK(rows[1].row == 2);
        CHECK(rows[1].fields == Fields{"Ravi", "98124"});
        CHECK(rows[1].problem.empty());
    }
    TEST_CASE("finds columns by exact name") {
        auto reader = CsvReader::from_string("name,phone\n", options(64));
        REQUIRE(reader.ok());
        CHECK(reader->column("phone") == 1u);
        CHECK_FALSE(reader->column("Phone").has_value());
    }
    TEST_CASE("a quoted field keeps its delimiter") {
        const auto rows = parse("a,b\n\"x, y\",z\n");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].fields == Fields{"x, y", "z"});
    }
    TEST_CASE("a doubled quote stands for one quote") {
        const auto rows = parse("a,b\n\"say \"\"hi\"\"\",\"\"\"\"\n");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].fields == Fields{"say \"hi\"", "\""});
    }
    TEST_CASE("line breaks inside quotes stay in the field and count as lines") {
        const auto rows = parse("a,b\n\"one\ntwo\",x\r\n\"three\r\nfour\",y\nlast,z\n");
        REQUIRE(rows.size() == 3);
        CHECK(rows[0].fields == Fields{"one\ntwo", "x"});
        CHECK(rows[0].line == 2);
        CHECK(rows[1].fields == Fields{"three\r\nfour", "y"});
        CHECK(rows[1].line == 4);
        CHECK(rows[2].line == 6);
    }
    TEST_CASE("CRLF, LF and lone CR all end a line") {
        const auto rows = parse("a,b\r\n1,2\r\n3,4\r5,6\n7,8");
        REQUIRE(rows.size() == 4);
        CHECK(rows[0].fields == Fields{"1", "2"});
        CHECK(rows[1].fields == Fields{"3", "4"});
        CHECK(rows[2].fields == Fields{"5", "6"});
        CHECK(rows[3].fields == Fields{"7", "8"});
        CHECK(rows[3].line == 5);
    }
    TEST_CASE("a UTF-8 BOM is skipped") {
        auto reader = CsvReader::from_string("\xEF\xBB\xBFname,phone\nA,1\n", options(1));
        REQUIRE(reader.ok());
        CHECK(reader->header() == Fields{"name", "phone"});
        CHECK(read_all(*reader).size() == 1);
    }
    TEST_CASE("a UTF-16 file is refused with a hint") {
        CHECK(header_error("\xFF\xFEn\0a\0") == "r.csv:1: the file is UTF-16; save it as UTF-8");
    }
    TEST_CASE("empty fields are kept, quoted or not") {
        const auto rows = parse("a,b,c\n,,\n\"\",x,\"\"\n");
        REQUIRE(rows.size() == 2);
        CHECK(rows[0].fields == Fields{"", "", ""});
        CHECK(rows[0].problem.empty());
        CHECK(rows[1].fields == Fields{"", "x", ""});
    }
    TEST_CASE("a trailing delimiter is one more, empty field") {
        const auto rows = parse("a,b\n1,2,\n");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].problem == "row 1 has 3 fields, the header has 2");
    }
    TEST_CASE("the last line needs no line break") {
        const auto rows = parse("a,b\n1,2\n3,\"4\"");
        REQUIRE(rows.size() == 2);
        CHECK(rows[1].fields == Fields{"3", "4"});
    }
    TEST_CASE("nothing is trimmed") {
        const auto rows = parse("a,b\n  x , \" y \"\n");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].fields == Fields{"  x ", " \" y \""});
    }
    TEST_CASE("a quote inside an unquoted field is text") {
        const auto rows = parse("a,b\n5'11\",x\n");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].fields == Fields{"5'11\"", "x"});
        CHECK(rows[0].problem.empty());
    }
    TEST_CASE("blank lines are skipped but keep their line numbers") {
        const auto rows = parse("\n\na,b\n\n1,2\r\n\r\n\n3,4\n\n");
        REQUIRE(rows.size() == 2);
        CHECK(rows[0].row == 1);
        CHECK(rows[0].line == 5);
        CHECK(rows[1].row == 2);
        CHECK(rows[1].line == 8);
    }
    TEST_CASE("a header alone means zero rows") {
        auto reader = CsvReader::from_string("name,phone\r\n", options(2));
        REQUIRE(reader.ok());
        CsvRecord record;
        auto more = reader->next(record);
        REQUIRE(more);
        CHECK_FALSE(*more);
    }
    TEST_CASE("ragged rows are problems, padded or cut to the header, and reading goes on") {
        const auto rows = parse("a,b,c\n1,2\n1,2,3,4,5\n1,2,3\n");
        REQUIRE(rows.size() == 3);
        CHECK(rows[0].problem == "row 1 has 2 fields, the header has 3");
        CHECK(rows[0].fields == Fields{"1", "2", ""});
        CHECK(rows[1].problem == "row 2 has 5 fields, the header has 3");
        CHECK(rows[1].fields == Fields{"1", "2", "3"});
        CHECK(rows[2].problem.empty());
    }
    TEST_CASE("an unterminated quote is the last row read") {
        const auto rows = parse("a,b\n1,2\n3,\"open\n4,5\n6,7\n");
        REQUIRE(rows.size() == 2);
        CHECK(rows[1].row == 2);
        CHECK(rows[1].problem ==
              "row 2: a quoted field opened on line 3 is never closed; nothing after it can be read");
    }
    TEST_CASE("text after a closing quote is a problem") {
        const auto rows = parse("a,b\n\"x\"y,z\n");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].problem == "row 1: column \"a\" has text after its closing quote");
    }
    TEST_CASE("semicolon and tab delimiters") {
        const auto semi = parse("a;b\n\"x;y\";2,5\n", ';');
        REQUIRE(semi.size() == 1);
        CHECK(semi[0].fields == Fields{"x;y", "2,5"});
        const auto tab = parse("a\tb\nx y\t\"t\tu\"\n", '\t');
        REQUIRE(tab.size() == 1);
        CHECK(tab[0].fields == Fields{"x y", "t\tu"});
    }
    TEST_CASE("invalid UTF-8 in a row is a problem naming the column") {
        const auto rows = parse("name,phone\n\xC3(bad,1\n\xC3\xA9t\xC3\xA9,2\n");
        REQUIRE(rows.size() == 2);
        CHECK(rows[0].problem == "row 1: column \"name\" is not valid UTF-8 (save the file as UTF-8)");
        CHECK(rows[1].problem.empty());
        CHECK(rows[1].fields[0] == "\xC3\xA9t\xC3\xA9");
    }
    TEST_CASE("overlong and surrogate encodings are invalid UTF-8") {
        CHECK_FALSE(parse("a\n\xC0\xAF\n")[0].problem.empty());
        CHECK_FALSE(parse("a\n\xED\xA0\x80\n")[0].problem.empty());
        CHECK(parse("a\n\xF0\x9F\x98\x80\n")[0].problem.empty());
    }
    TEST_CASE("a NUL byte is a problem") {
        const auto rows = parse(std::string("a,b\n1,x\0y\n", 10));
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].problem == "row 1: column \"b\" contains a NUL byte (is the file UTF-16?)");
    }
    TEST_CASE("a field over the size cap is a problem and is not kept whole") {
        CsvOptions o = options(4);
        o.max_field_bytes = 8;
        auto reader = CsvReader::from_string("a,b\n1,\"0123456789abc\"\n2,ok\n", o);
        REQUIRE(reader.ok());
        const auto rows = read_all(*reader);
        REQUIRE(rows.size() == 2);
        CHECK(rows[0].problem == "row 1: column \"b\" is longer than 8 bytes");
        CHECK(rows[0].fields[1].size() == 8);
        CHECK(rows[1].problem.empty());
    }
    TEST_CASE("an empty file is an error") {
        CHECK(header_error("") == "r.csv: the file is empty; it needs a header row naming its columns");
        CHECK(header_error("\r\n\n") == "r.csv: the file is empty; it needs a header row naming its columns");
    }
    TEST_CASE("an empty column name is an error naming its position") {
        CHECK(header_error("name,,phone\n") == "r.csv:1: column 2 of the header has no name");
        CHECK(header_error("\nname,phone,\n") == "r.csv:2: column 3 of the header has no name");
    }
    TEST_CASE("a duplicate column name is an error naming it") {
        CHECK(header_error("phone,name,phone\n") ==
              "r.csv:1: the header names column \"phone\" twice (columns 1 and 3)");
    }
    TEST_CASE("header problems are errors") {
        CHECK(header_error("a,\"b\n") ==
              "r.csv:1: the header: a quoted field opened on line 1 is never closed; "
              "nothing after it can be read");
        CHECK(header_error("a,\xFF\n") == "r.csv:1: the header: column 2 is not valid UTF-8 (save the file as UTF-8)");
    }
    TEST_CASE("spaces around column names are trimmed") {
        auto reader = CsvReader::from_string("name , phone\n", options(64));
        REQUIRE(reader.ok());
        CHECK(reader->header() == Fields{"name", "phone"});
    }
    TEST_CASE("a quote or line break cannot be the delimiter") {
        CHECK_FALSE(CsvReader::from_string("a\n", options(64, '"')).ok());
        CHECK_FALSE(CsvReader::from_string("a\n", options(64, '\n')).ok());
    }
    TEST_CASE("next() reuses the record's buffers") {
        auto reader = CsvReader::from_string("a,b\nfirst-long-value-here,1\nshort,2\n", options(64));
        REQUIRE(reader.ok());
        CsvRecord record;
        REQUIRE(*reader->next(record));
        const char* buffer = record.fields[0].data();
        REQUIRE(*reader->next(record));
        CHECK(record.fields[0] == "short");
        CHECK(record.fields[0].data() == buffer);
    }
    TEST_CASE("reads a file from disk") {
        const std::string path = (std::filesystem::temp_directory_path() / "wacamp_test_csv_reader.csv").string();
        {
            std::ofstream out(path, std::ios::binary);
            out << "\xEF\xBB\xBFphone;name\r\n+91 98123 45678;\"Asha; K\"\r\n";
        }
        auto reader = CsvReader::open(path, ';');
        REQUIRE(reader.ok());
        const auto rows = read_all(*reader);
        std::remove(path.c_str());
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].fields == Fields{"+91 98123 45678", "Asha; K"});
    }
    TEST_CASE("a missing file is an error naming it") {
        auto reader = CsvReader::open("/nonexistent/recipients.csv", ',');
        REQUIRE_FALSE(reader.ok());
        CHECK(reader.error().message == "/nonexistent/recipients.csv: cannot open: No such file or directory");
    }
    TEST_CASE("a read error is an error from next(), not a row; the end is false") {
        auto reader = CsvReader::from_stream(std::make_unique<FailingStream>("name,phone\nAsha,98123\nRavi,9"),
                                             options(8), "r.csv");
        REQUIRE(reader.ok());
        CsvRecord record;
        auto first = reader->next(record);
        REQUIRE(first);
        CHECK(*first);
        CHECK(record.fields == Fields{"Asha", "98123"});
        auto failed = reader->next(record);  // Ravi's row is cut short by the error
        REQUIRE_FALSE(failed);
        CHECK(failed.error().message == "r.csv: the file could not be read past line 3");

        auto whole = CsvReader::from_string("name,phone\nAsha,98123\n", options(8));
        REQUIRE(whole.ok());
        REQUIRE(*whole->next(record));
        auto end = whole->next(record);
        REQUIRE(end);
        CHECK_FALSE(*end);
    }
    TEST_CASE("a read error in the header fails the open") {
        auto reader = CsvReader::from_stream(std::make_unique<FailingStream>("name,pho"), options(64), "r.csv");
        REQUIRE_FALSE(reader.ok());
        CHECK(reader.error().message == "r.csv: the file could not be read past line 1");
    }
}
