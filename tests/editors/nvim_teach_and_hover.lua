-- Drive Comodor from a real Neovim (0.7+): attach the server, teach a house rule
-- through workspace/executeCommand, then read it back from hover, both the raw
-- LSP result and the floating window a user would see. Results go to a JSON file;
-- the exit code is 0 when every step ran.
local python = os.getenv("COMODOR_PYTHON")
local out_path = os.getenv("COMODOR_NVIM_OUT")
local results = { steps = {} }

local function finish(code)
  local file = io.open(out_path, "w")
  file:write(vim.fn.json_encode(results))
  file:close()
  vim.cmd(code == 0 and "qall!" or "cquit! " .. code)
end

local function step(name, value)
  table.insert(results.steps, name)
  results[name] = value
end

local ok, err = pcall(function()
  local initialized = false
  local config = {
    name = "comodor",
    cmd = { python, "-m", "comodor_lsp", "serve" },
    root_dir = vim.fn.getcwd(),
    on_init = function() initialized = true end,
  }
  local bufnr = vim.api.nvim_get_current_buf()
  local id
  if vim.lsp.start then
    id = vim.lsp.start(config)
  else
    id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, id)
  end
  assert(vim.wait(20000, function() return initialized end, 50), "server did not initialize")
  local client = vim.lsp.get_client_by_id(id)
  step("commands", client.server_capabilities.executeCommandProvider.commands)
  vim.wait(300)

  local taught = vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", {
    command = "comodor.teachRule",
    arguments = { { statement = "Prefer pathlib over os.path." } },
  }, 10000)
  step("taught", taught[id].result)

  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000)
  step("hover", hover[id].result.contents.value)

  -- The user path: K opens a floating window; read what it shows.
  vim.lsp.buf.hover()
  local shown = nil
  vim.wait(5000, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then
        local buf = vim.api.nvim_win_get_buf(win)
        shown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
        return true
      end
    end
    return false
  end, 50)
  step("float", shown)
  -- A rule taught in words is checked in the buffer: vim.diagnostic shows where.
  vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", {
    command = "comodor.teachRule",
    arguments = { { statement = "Use single quotes for strings." } },
  }, 10000)
  local found = {}
  vim.wait(10000, function()
    found = vim.diagnostic.get(bufnr)
    return #found > 0
  end, 50)
  local diagnostics = {}
  for _, d in ipairs(found) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(diagnostics, {
      lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message,
      source = d.source or lsp.source, code = d.code or lsp.code, severity = d.severity,
    })
  end
  step("diagnostics", diagnostics)

  -- The quick fix for it, as `vim.lsp.buf.code_action()` would ask.
  if #found > 0 then
    -- The LSP diagnostic back, as Neovim's own code_action() rebuilds it.
    local d = found[1]
    local kept = d.user_data and d.user_data.lsp or {}
    local range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    }
    local lsp = {
      range = range, message = d.message, severity = d.severity,
      source = d.source or kept.source, code = d.code or kept.code, data = kept.data,
    }
    local actions = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = range,
      context = { diagnostics = { lsp } },
    }, 10000)
    local titles = {}
    for _, action in ipairs(actions[id].result or {}) do
      table.insert(titles, action.title)
    end
    step("actions", titles)
  end
  vim.lsp.stop_client(id)
end)
if not ok then
  results.error = tostring(err)
  finish(1)
else
  finish(0)
end
