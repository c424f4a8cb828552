"""Compare: PyTorch's torch.utils.benchmark.Compare, which lays many Measurements out as text
tables: one table per label, a row per (num_threads, env, sub_label or stmt), a column per
description, medians in a common unit.  The text is PyTorch's, character for character
(including the optional ANSI colours and the "(! XX%)" variance marks); nothing departs.
"""
import enum
import itertools
import math

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(value: float) -> int:
    # PyTorch takes this ceil(log10) through float32
    return int(math.ceil(common._log10_f32(value)))


class _Column:
    """One description's cells: fixes how many digits every cell of the column shows."""

    def __init__(self, grouped_results, time_scale, trim_significant_figures,
                 highlight_warnings):
        self._grouped_results = grouped_results
        flat = list(itertools.chain.from_iterable(grouped_results))
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        digits = [_leading_digits(r.median / time_scale) if r else None for r in flat]
        unit_digits = max(d for d in digits if d is not None)
        if self._trim:
            decimals = min(max(m.significant_figures - d, 0)
                           for d, m in zip(digits, flat) if m is not None and d is not None)
        else:
            decimals = 1
        width = unit_digits + decimals + (1 if decimals else 0)
        self._number_format = f"{{:>{width}.{decimals}f}}"
        self._mark_width = 7 if self._highlight else 0

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, estimated_sigfigs, spread):
        if value is None:       # an empty cell is as wide as a filled one
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, estimated_sigfigs)
        mark = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._number_format.format(value) + f"{mark:>{self._mark_width}}"


class _Row:
    """One (num_threads, env, row name) line of a table."""

    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize,
                 num_threads=None):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._columns = ()
        self._num_threads = num_threads     # set on the first row of a thread count

    def register_columns(self, columns):
        self._columns = columns

    def as_column_strings(self):
        first = next(r for r in self._results if r is not None)
        env = f"({first.env})" if self._render_env else ""
        cells = ["  " + env.ljust(self._env_str_len + 4) + first.as_row_name]
        for m, column in zip(self._results, self._columns):
            if m is None:
                cells.append(column.num_to_str(None, 1, None))
            else:
                spread = m.iqr / m.median if m.has_warnings else None
                cells.append(column.num_to_str(m.median / self._time_scale,
                                               m.significant_figures, spread))
        return cells

    @staticmethod
    def color_segment(segment, value, best_value):
        if value <= best_value * 1.01 or value <= best_value + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best_value * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best_value * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best_value * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, overall_width):
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(overall_width, "-")]

    def finalize_column_strings(self, column_strings, col_widths):
        if self._colorize == Colorize.ROWWISE:
            row_best = min(r.median for r in self._results if r is not None)
            best_values = [row_best] * len(column_strings)
        elif self._colorize == Colorize.COLUMNWISE:
            best_values = []
            for column in self._columns:
                medians = [r.median for r in column.get_results_for(self._row_group)
                           if r is not None]
                best_values.append(min(medians) if medians else None)
        else:
            best_values = [-1] * len(column_strings)

        contents = [column_strings[0].ljust(col_widths[0])]
        for text, width, result, best in zip(column_strings[1:], col_widths[1:], self._results,
                                             best_values):
            text = text.center(width)
            if self._colorize != Colorize.NONE and result is not None and best is not None:
                text = self.color_segment(text, result.median, best)
            contents.append(text)
        return contents


class Table:
    """The table of one label's Measurements."""

    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self._colorize = colorize
        self._trim_significant_figures = trim_significant_figures
        self._highlight_warnings = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))

        self.row_keys = common.ordered_unique(self.row_fn(r) for r in results)
        # sorted by thread count and env only: rows keep the order their stmts came in
        self.row_keys.sort(key=lambda key: key[:2])
        self.column_keys = common.ordered_unique(self.col_fn(r) for r in results)
        self.rows, self.columns = self.populate_rows_and_columns()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m):
        return m.description

    def populate_rows_and_columns(self):
        row_index = {key: i for i, key in enumerate(self.row_keys)}
        col_index = {key: j for j, key in enumerate(self.column_keys)}
        grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        for r in self.results:
            grid[row_index[self.row_fn(r)]][col_index[self.col_fn(r)]] = r

        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_str_len = max(len(e) for e in envs) if render_env else 0

        rows = []
        groups = []         # the grid's rows, split where the thread count changes
        prior_threads, prior_env = -1, ""
        for (num_threads, env, _), cells in zip(self.row_keys, grid):
            new_group = num_threads != prior_threads
            if new_group:
                prior_threads, prior_env = num_threads, ""
                groups.append([])
            rows.append(_Row(cells, len(groups) - 1, render_env and env != prior_env,
                             env_str_len, self.time_scale, self._colorize,
                             num_threads if new_group else None))
            groups[-1].append(cells)
            prior_env = env

        columns = tuple(
            _Column([tuple(cells[j] for cells in group) for group in groups], self.time_scale,
                    self._trim_significant_figures, self._highlight_warnings)
            for j in range(len(self.column_keys)))
        rows = tuple(rows)
        for row in rows:
            row.register_columns(columns)
        return rows, columns

    def render(self) -> str:
        string_rows = [[""] + self.column_keys]
        string_rows.extend(row.as_column_strings() for row in self.rows)
        num_cols = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (num_cols - len(r)))
        col_widths = [max(len(cell) for cell in col) for col in zip(*string_rows)]

        header = "  |  ".join(cell.center(w) for cell, w in zip(string_rows[0], col_widths))
        lines = [header]
        overall_width = len(header)
        for cells, row in zip(string_rows[1:], self.rows):
            lines.extend(row.row_separator(overall_width))
            lines.append("  |  ".join(row.finalize_column_strings(cells, col_widths)))

        title = f" {self.label or ''} ".center(overall_width - 2, "-")
        has_warnings = self._highlight_warnings and any(r.has_warnings for r in self.results)
        footer = ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                  if has_warnings else "")
        return (f"[{title}]\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(self.time_unit)}s ({self.time_unit}).\n"
                + footer)


class Compare:
    """Format many Measurements as tables (one per label): print() them or str() them.
    Replicates (equal TaskSpecs) are merged first.  trim_significant_figures(), colorize()
    and highlight_warnings() switch the optional formatting on."""

    def __init__(self, results) -> None:
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Add more Measurements (anything else raises ValueError, adding nothing)."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show only each column's significant figures."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False) -> None:
        """Colour each cell by how it compares with its column's best (or its row's best)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark cells whose Measurement has high variance with "(! XX%)"."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self):
        by_label = {}
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [Table(group, self._colorize, self._trim_significant_figures,
                      self._highlight_warnings).render() for group in by_label.values()]
