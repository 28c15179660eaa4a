;;; emacs_hover_and_diagnostics.el --- Drive Comodor from a real Emacs (eglot, batch mode)
;;
;; Attach eglot to `comodor-lsp serve', teach a house rule with
;; workspace/executeCommand, read it back from hover (the raw LSP result and
;; eldoc's rendering of it), and wait for flymake to list the place in the
;; buffer that breaks it.  Results go to a JSON file; Emacs exits 0 when every
;; step ran.

(require 'eglot)
(require 'json)
(require 'flymake)

(defvar comodor-results nil)
(defvar comodor-messages nil)

(defun comodor-step (name value)
  (setq comodor-results (cons (cons name value) comodor-results)))

(defun comodor-finish (code)
  (with-temp-file (getenv "COMODOR_EMACS_OUT")
    (insert (json-encode comodor-results)))
  (kill-emacs code))

(defun comodor-wait (predicate seconds)
  "Let the server talk until PREDICATE holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    (funcall predicate)))

;; What eglot shows the user from window/showMessage (and anything else it says).
(advice-add 'eglot--message :before
            (lambda (format &rest args)
              (push (apply #'format format args) comodor-messages)))

(condition-case err
    (progn
      (setq eglot-sync-connect 30)
      (find-file (expand-file-name "demo.py" default-directory))
      (python-mode)
      (eglot '(python-mode) (project-current) 'eglot-lsp-server
             (list (getenv "COMODOR_PYTHON") "-m" "comodor_lsp" "serve") "python")
      (let ((server (eglot-current-server)))
        (unless server (error "eglot did not connect"))
        (comodor-step "taught"
                      (eglot-execute-command
                       server "comodor.teachRule"
                       (vector '(:statement "Use single quotes for strings."))))
        (goto-char (point-min))
        (let ((hover (jsonrpc-request server :textDocument/hover
                                      (eglot--TextDocumentPositionParams))))
          (comodor-step "hover" (plist-get (plist-get hover :contents) :value)))
        (comodor-step "flymake"
                      (when (comodor-wait (lambda () (flymake-diagnostics)) 20)
                        (mapcar (lambda (d)
                                  (list (cons "text" (flymake-diagnostic-text d))
                                        (cons "line" (line-number-at-pos
                                                      (flymake-diagnostic-beg d)))
                                        (cons "column" (save-excursion
                                                         (goto-char (flymake-diagnostic-beg d))
                                                         (current-column)))
                                        (cons "type" (symbol-name
                                                      (flymake-diagnostic-type d)))))
                                (flymake-diagnostics))))
        (comodor-step "messages" (vconcat comodor-messages))
        (eglot-shutdown server))
      (comodor-finish 0))
  (error (comodor-step "error" (format "%S" err))
         (comodor-finish 1)))
