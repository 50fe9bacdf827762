#include "common/json/json_document.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kvbench {
namespace {

using Json = nlohmann::ordered_json;

// A SAX pass that builds nothing: it tracks where it is (the path of the value being read), and
// records duplicate keys and out-of-range numbers where nlohmann would only throw.
class CheckingSax {
 public:
  CheckingSax(const JsonDocumentOptions& options, FieldErrors* errors)
      : options_(options), errors_(errors) {}

  bool null() { return Value(); }
  bool boolean(bool) { return Value(); }
  bool number_integer(Json::number_integer_t) { return Value(); }
  bool number_unsigned(Json::number_unsigned_t) { return Value(); }
  bool number_float(Json::number_float_t, const Json::string_t&) { return Value(); }
  bool string(Json::string_t&) { return Value(); }
  bool binary(Json::binary_t&) { return Value(); }

  bool start_object(std::size_t) {
    frames_.push_back(Frame{false, 0, {}, {}});
    return true;
  }
  bool key(Json::string_t& key) {
    Frame& frame = frames_.back();
    frame.key = key;
    if (options_.reject_duplicate_keys && !frame.keys.insert(key).second) {
      errors_->Add(Path(), "duplicate key: given more than once in this object");
    }
    return true;
  }
  bool end_object() {
    frames_.pop_back();
    return Value();
  }
  bool start_array(std::size_t) {
    frames_.push_back(Frame{true, 0, {}, {}});
    return true;
  }
  bool end_array() {
    frames_.pop_back();
    return Value();
  }

  bool parse_error(std::size_t /*position*/, const std::string& last_token,
                   const nlohmann::detail::exception& error) {
    if (error.id == kNumberOverflow) {
      errors_->Add(
          Path(), absl::StrCat(last_token, " is out of range (a number must fit a 64-bit double)"));
      return false;
    }
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." without the tag.
    absl::string_view what = error.what();
    const size_t bracket = what.find("] ");
    if (bracket != absl::string_view::npos) what.remove_prefix(bracket + 2);
    errors_->Add("", absl::StrCat("invalid JSON: ", what));
    return false;
  }

 private:
  // nlohmann's out_of_range.406: "number overflow parsing '1e999'".
  static constexpr int kNumberOverflow = 406;

  struct Frame {
    bool array = false;
    size_t index = 0;  // arrays: the element being read
    std::string key;   // objects: the member being read
    std::set<std::string> keys;
  };

  // One value ended: an array moves on to its next element.
  bool Value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& frame : frames_) {
      if (frame.array) {
        absl::StrAppend(&path, "[", frame.index, "]");
      } else {
        absl::StrAppend(&path, path.empty() ? "" : ".", frame.key);
      }
    }
    return path;
  }

  const JsonDocumentOptions& options_;
  FieldErrors* errors_;
  std::vector<Frame> frames_;
};

}  // namespace

FieldErrors ParseJsonDocument(absl::string_view text, nlohmann::ordered_json* out,
                              JsonDocumentOptions options) {
  FieldErrors errors;
  CheckingSax sax(options, &errors);
  const bool parsed = Json::sax_parse(text.begin(), text.end(), &sax);
  if (!parsed && errors.empty()) errors.Add("", "invalid JSON");
  if (!errors.empty()) return errors;
  // Checked above: this parse neither fails nor throws.
  *out = Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) errors.Add("", "invalid JSON");
  return errors;
}

}  // namespace kvbench
