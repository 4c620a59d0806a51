-- A scripted run of `nsd lsp` in a real editor: Neovim (0.7 or later) headless, its built-in
-- LSP client. Opens the file given after `--`, prints the diagnostics the server publishes,
-- the hover on the cursor position given by NSD_HOVER ("line:col", 1-based line, 0-based
-- column) and whether formatting changed the buffer, then quits.
--
--   NSD=target/release/nsd NSD_HOVER=4:30 nvim --headless -u editors/nvim_headless.lua FILE
local nsd = os.getenv("NSD") or "nsd"
local out = function(s) io.stdout:write(s .. "\n") end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = "nsd"
  local id = vim.lsp.start_client({ name = "nsd", cmd = { nsd, "lsp" }, root_dir = vim.fn.getcwd() })
  vim.lsp.buf_attach_client(buf, id)
  local ok = vim.wait(5000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    out(string.format("diagnostic %d:%d %s %s", d.lnum + 1, d.col, d.code or "", (d.message:gsub("\n", " | "))))
  end
  if not ok then out("no diagnostics") end
  local client = vim.lsp.get_client_by_id(id)
  local hover = os.getenv("NSD_HOVER")
  if hover then
    local line, col = hover:match("(%d+):(%d+)")
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = tonumber(line) - 1, character = tonumber(col) } }
    local r = client.request_sync("textDocument/hover", params, 5000, buf)
    if r and r.result then out("hover " .. (r.result.contents.value:gsub("\n", " | "))) end
  end
  local fmt = client.request_sync("textDocument/formatting",
    { textDocument = { uri = vim.uri_from_bufnr(buf) }, options = { tabSize = 2, insertSpaces = true } }, 5000, buf)
  out("formatting edits " .. tostring(fmt and fmt.result and #fmt.result or 0))
  client.stop()
  vim.wait(2000, function() return client.is_stopped() end, 20)
  vim.cmd("qa!")
end

vim.schedule(run)
