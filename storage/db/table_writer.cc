#include "storage/db/table_writer.h"

#include "storage/db/filename.h"

namespace ebb::storage {

TableWriter::TableWriter(std::shared_ptr<FileSystem> fs, std::string dir,
                         const TableOptions& options)
    : fs_(std::move(fs)), dir_(std::move(dir)), options_(options) {}

TableWriter::~TableWriter() {
  if (finished_ || path_.empty()) return;
  if (builder_) builder_->Abandon();
  builder_.reset();
  if (file_) file_->Close();
  fs_->RemoveFile(path_);
}

Status TableWriter::Open(uint64_t number) {
  number_ = number;
  path_ = TableFileName(dir_, number);
  Status s = fs_->NewWritableFile(path_, &file_);
  if (!s.ok()) return s;
  builder_ = std::make_unique<TableBuilder>(options_, file_.get());
  return Status::OK();
}

Status TableWriter::Add(std::string_view internal_key, std::string_view encoded_row) {
  builder_->Add(internal_key, encoded_row);
  return builder_->status();
}

Status TableWriter::Finish(FileMetaData* meta) {
  Status s = builder_->Finish();
  if (s.ok()) s = file_->Sync();
  if (s.ok()) s = file_->Close();
  if (!s.ok()) return s;
  finished_ = true;
  meta->number = number_;
  meta->file_size = builder_->FileSize();
  meta->props = builder_->properties();
  meta->smallest = meta->props.smallest_key;
  meta->largest = meta->props.largest_key;
  return Status::OK();
}

}  // namespace ebb::storage
