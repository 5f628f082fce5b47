DROP TABLE habit_marks;
